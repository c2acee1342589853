/*
 * The cache of what the heads of changes peel to (see change-peel.h).
 *
 * $GIT_COMMON_DIR/metas-peeled holds "MPC1", the format id of the hash
 * and the number of records (4 bytes each, network order), a fan-out
 * table of 256 cumulative counts by the first byte of the head (as in a
 * pack index), then the records sorted by head: the head's object name
 * and what it peels to, raw, the head itself for a commit that is not a
 * metacommit (a commit cannot hold itself). Only heads that are commits
 * holding commits are kept. Looking a head up is a binary search in the
 * file as read, so that loading the cache of 100,000 changes costs one
 * read, not 100,000 insertions.
 *
 * The file is rewritten whole under its lock, never appended to, so a
 * record is never torn. What it says never goes stale: a metacommit
 * names its content forever. Read back it is untrusted all the same: a
 * file of another hash or whose size or fan-out does not add up is
 * ignored, and at worst a record that lies puts a decoration on the
 * wrong commit, as a ref that lies would.
 */

#include "git-compat-util.h"
#include "change-peel.h"
#include "commit.h"
#include "environment.h"
#include "hash.h"
#include "hash-lookup.h"
#include "lockfile.h"
#include "metacommit.h"
#include "object.h"
#include "odb.h"
#include "oidmap.h"
#include "path.h"
#include "replace-object.h"
#include "repository.h"
#include "strbuf.h"
#include "wrapper.h"

#define PEEL_CACHE_FILE "metas-peeled"
#define PEEL_CACHE_MAGIC "MPC1"
#define PEEL_CACHE_HEADER_LEN 12
#define PEEL_CACHE_FANOUT_LEN (256 * 4)

/* A head learned since the file was read. */
struct learned_head {
	struct oidmap_entry entry;	/* the head */
	struct object_id peeled;
};

struct change_peel_cache {
	struct repository *repo;
	/* The file as read, and where its records start. */
	struct strbuf file;
	const unsigned char *records;
	const unsigned char *fanout;
	size_t nr;
	/* Which records were asked (one bit each), and how many. */
	unsigned char *asked;
	size_t asked_nr;
	/* Of struct learned_head. */
	struct oidmap learned;
};

static size_t record_size(const struct change_peel_cache *cache)
{
	return 2 * cache->repo->hash_algo->rawsz;
}

static void header(struct repository *r, size_t nr, unsigned char *out)
{
	memcpy(out, PEEL_CACHE_MAGIC, 4);
	put_be32(out + 4, r->hash_algo->format_id);
	put_be32(out + 8, nr);
}

/* Whether the file read into `cache->file` adds up; take it if so. */
static int check_file(struct change_peel_cache *cache)
{
	const unsigned char *p = (const unsigned char *)cache->file.buf;
	unsigned char expect[PEEL_CACHE_HEADER_LEN];
	size_t nr, prev = 0;

	if (cache->file.len < PEEL_CACHE_HEADER_LEN + PEEL_CACHE_FANOUT_LEN)
		return -1;
	nr = get_be32(p + 8);
	header(cache->repo, nr, expect);
	if (memcmp(p, expect, PEEL_CACHE_HEADER_LEN) ||
	    (cache->file.len - PEEL_CACHE_HEADER_LEN - PEEL_CACHE_FANOUT_LEN) /
	    record_size(cache) != nr ||
	    (cache->file.len - PEEL_CACHE_HEADER_LEN - PEEL_CACHE_FANOUT_LEN) %
	    record_size(cache))
		return -1;
	for (int i = 0; i < 256; i++) {
		size_t count = get_be32(p + PEEL_CACHE_HEADER_LEN + 4 * i);

		if (count < prev || count > nr)
			return -1;
		prev = count;
	}
	if (prev != nr)
		return -1;
	cache->fanout = p + PEEL_CACHE_HEADER_LEN;
	cache->records = cache->fanout + PEEL_CACHE_FANOUT_LEN;
	cache->nr = nr;
	cache->asked = xcalloc(1, nr / 8 + 1);
	return 0;
}

/*
 * Whether objects may be read as other objects (replace refs): then
 * what a head peels to depends on them, and the cache would lie.
 */
static int objects_replaced(struct repository *r)
{
	if (!replace_refs_enabled(r))
		return 0;
	prepare_replace_object(r);
	return !!oidmap_get_size(&r->objects->replace_map);
}

struct change_peel_cache *change_peel_cache_load(struct repository *r)
{
	struct change_peel_cache *cache;
	char *path;

	if (!r->gitdir || objects_replaced(r))
		return NULL;
	cache = xcalloc(1, sizeof(*cache));
	path = repo_common_path(r, PEEL_CACHE_FILE);
	cache->repo = r;
	strbuf_init(&cache->file, 0);
	oidmap_init(&cache->learned, 0);
	if (strbuf_read_file(&cache->file, path, 0) >= 0 && check_file(cache))
		strbuf_release(&cache->file);
	free(path);
	return cache;
}

/* The index of the record of `head` in the file, or -1. */
static ssize_t find_record(struct change_peel_cache *cache,
			   const struct object_id *head)
{
	uint32_t pos;

	/* The fan-out is 4-aligned: 12 bytes into a malloc()ed buffer. */
	if (!cache->nr ||
	    !bsearch_hash(head->hash, (const uint32_t *)cache->fanout,
			  cache->records, record_size(cache), &pos))
		return -1;
	return pos;
}

/*
 * Whether `oid` is a commit; peel_change_head() has often parsed it
 * already (from the commit graph, or reading a metacommit), and then
 * its type is known without reading it again.
 */
static int is_commit(struct repository *r, const struct object_id *oid)
{
	struct object *obj = lookup_object(r, oid);

	if (obj && obj->parsed)
		return obj->type == OBJ_COMMIT;
	return odb_read_object_info(r->objects, oid, NULL) == OBJ_COMMIT;
}

/*
 * Learn what `head` peels to, if the head and what it peels to are both
 * commits (as they are unless someone crafted them): reading them is
 * what the cache saves.
 */
static int learn_head(struct change_peel_cache *cache, const char *refname,
		      const struct object_id *head, struct object_id *peeled)
{
	struct repository *r = cache->repo;
	struct learned_head *e;

	oidcpy(peeled, head);
	peel_change_head(r, refname, peeled);
	if (!is_commit(r, head) ||
	    (!oideq(peeled, head) && !is_commit(r, peeled)))
		return -1;
	CALLOC_ARRAY(e, 1);
	oidcpy(&e->entry.oid, head);
	oidcpy(&e->peeled, peeled);
	oidmap_put(&cache->learned, e);
	return 0;
}

struct commit *change_peel_cache_commit(struct change_peel_cache *cache,
					const char *refname,
					const struct object_id *head)
{
	const struct git_hash_algo *algo;
	struct learned_head *learned;
	struct object_id peeled;
	ssize_t i;

	if (!cache || !is_change_refname(refname))
		return NULL;
	algo = cache->repo->hash_algo;
	i = find_record(cache, head);
	if (i >= 0) {
		if (!(cache->asked[i / 8] & (1 << (i % 8)))) {
			cache->asked[i / 8] |= 1 << (i % 8);
			cache->asked_nr++;
		}
		oidread(&peeled, cache->records + i * record_size(cache) +
			algo->rawsz, algo);
	} else if ((learned = oidmap_get(&cache->learned, head))) {
		oidcpy(&peeled, &learned->peeled);
	} else if (learn_head(cache, refname, head, &peeled)) {
		return NULL;
	}
	return lookup_commit(cache->repo, &peeled);
}

/* One record to write: a head and what it peels to, raw. */
struct peel_record {
	const unsigned char *head;
	const unsigned char *peeled;
};

static int compare_records(const void *a, const void *b, void *rawsz)
{
	const struct peel_record *x = a, *y = b;

	return memcmp(x->head, y->head, *(size_t *)rawsz);
}

/*
 * The records to write: those of the file (only those asked, if they
 * are less than half of it and every change was asked) and those
 * learned, sorted by head.
 */
static size_t collect_records(struct change_peel_cache *cache,
			      int asked_every_change,
			      struct peel_record **out)
{
	size_t rawsz = cache->repo->hash_algo->rawsz;
	int all = !asked_every_change || cache->asked_nr * 2 >= cache->nr;
	struct peel_record *records;
	struct oidmap_iter iter;
	struct learned_head *e;
	size_t nr = 0;

	ALLOC_ARRAY(records, st_add(cache->nr,
				    oidmap_get_size(&cache->learned)));
	for (size_t i = 0; i < cache->nr; i++) {
		const unsigned char *p = cache->records + i * record_size(cache);

		if (!all && !(cache->asked[i / 8] & (1 << (i % 8))))
			continue;
		records[nr].head = p;
		records[nr++].peeled = p + rawsz;
	}
	oidmap_iter_init(&cache->learned, &iter);
	while ((e = oidmap_iter_next(&iter))) {
		records[nr].head = e->entry.oid.hash;
		records[nr++].peeled = e->peeled.hash;
	}
	QSORT_S(records, nr, compare_records, &rawsz);
	*out = records;
	return nr;
}

static void write_cache(struct change_peel_cache *cache,
			int asked_every_change)
{
	struct repository *r = cache->repo;
	size_t rawsz = r->hash_algo->rawsz;
	struct lock_file lock = LOCK_INIT;
	unsigned char buf[PEEL_CACHE_HEADER_LEN];
	uint32_t fanout[256] = { 0 };
	struct strbuf out = STRBUF_INIT;
	struct peel_record *records;
	size_t nr = collect_records(cache, asked_every_change, &records);
	char *path = repo_common_path(r, PEEL_CACHE_FILE);

	/*
	 * A cache is never worth waiting for, nor an error, and is not
	 * written when optional locks are not wanted (see git(1)).
	 */
	if (nr > UINT32_MAX || !use_optional_locks() ||
	    hold_lock_file_for_update(&lock, path, 0) < 0)
		goto out;
	header(r, nr, buf);
	strbuf_add(&out, buf, sizeof(buf));
	for (size_t i = 0; i < nr; i++)
		fanout[records[i].head[0]]++;
	for (uint32_t i = 0, total = 0; i < 256; i++) {
		total += fanout[i];
		put_be32(buf, total);
		strbuf_add(&out, buf, 4);
	}
	for (size_t i = 0; i < nr; i++) {
		strbuf_add(&out, records[i].head, rawsz);
		strbuf_add(&out, records[i].peeled, rawsz);
	}
	if (write_in_full(get_lock_file_fd(&lock), out.buf, out.len) < 0)
		rollback_lock_file(&lock);
	else
		commit_lock_file(&lock);
out:
	free(records);
	strbuf_release(&out);
	free(path);
}

void change_peel_cache_release(struct change_peel_cache *cache,
				int asked_every_change)
{
	if (!cache)
		return;
	if (oidmap_get_size(&cache->learned))
		write_cache(cache, asked_every_change);
	oidmap_clear(&cache->learned, 1);
	free(cache->asked);
	strbuf_release(&cache->file);
	free(cache);
}
