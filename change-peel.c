/*
 * The cache of what the heads of changes are (see change-peel.h).
 *
 * $GIT_COMMON_DIR/metas-peeled holds "MPC2", the format id of the hash,
 * the number of records and the number of obsolete commits (4 bytes each,
 * network order), a fan-out table of 256 cumulative counts by the first
 * byte of the head (as in a pack index), the records sorted by head, then
 * the obsolete commits. A record is the head's object name and what it
 * peels to, raw (the head itself for a commit that is not a metacommit: a
 * commit cannot hold itself), then, 4 bytes each, its flags, where its
 * obsolete commits start and how many there are. An obsolete commit is
 * its object name, raw, and how many versions came after it (4 bytes).
 * Only heads that are commits holding commits are kept. Looking a head
 * up is a binary search in the file as read, so that loading the cache
 * of 100,000 changes costs one read, not 100,000 insertions.
 *
 * A record without PEEL_FACTS_FULL (learned by "log --decorate", which
 * asks only what a head peels to) says nothing of its flags and obsolete
 * commits; the change graph learns those and replaces the record.
 *
 * The file is rewritten whole under its lock, never appended to, so a
 * record is never torn. What it says never goes stale: a metacommit
 * names its content and the commits it replaces forever, and the cache
 * is not used while replace refs may make an object read as another.
 * Read back it is untrusted all the same: a file of another hash or
 * whose size or fan-out does not add up is ignored, so is a record with
 * unknown flags or obsolete commits out of bounds, and at worst a record
 * that lies puts a decoration on the wrong commit, or makes a change
 * hold another commit, as a ref that lies would.
 */

#include "git-compat-util.h"
#include "change-peel.h"
#include "change-table.h"
#include "commit.h"
#include "environment.h"
#include "hash.h"
#include "hash-lookup.h"
#include "lockfile.h"
#include "metacommit.h"
#include "object.h"
#include "odb.h"
#include "oidmap.h"
#include "oidset.h"
#include "path.h"
#include "replace-object.h"
#include "repository.h"
#include "strbuf.h"
#include "trace2.h"
#include "wrapper.h"

#define PEEL_CACHE_FILE "metas-peeled"
#define PEEL_CACHE_MAGIC "MPC2"
#define PEEL_CACHE_HEADER_LEN 16
#define PEEL_CACHE_FANOUT_LEN (256 * 4)

/* The record knows the flags and obsolete commits of its head. */
#define PEEL_FACTS_FULL 1
/* The head is an abandoned metacommit. */
#define PEEL_FACTS_ABANDONED 2

/* A head learned since the file was read. */
struct learned_head {
	struct oidmap_entry entry;	/* the head */
	struct object_id peeled;
	unsigned flags;
	/* The commits it makes obsolete, as in the file. */
	struct strbuf obsolete;
	size_t obsolete_nr;
};

struct change_peel_cache {
	struct repository *repo;
	/* The file as read, and where its records start. */
	struct strbuf file;
	const unsigned char *records;
	const unsigned char *fanout;
	const unsigned char *obsolete;
	size_t nr, obsolete_nr;
	/* Which records were asked (one bit each), and how many. */
	unsigned char *asked;
	size_t asked_nr;
	/* Of struct learned_head. */
	struct oidmap learned;
	/* Heads that could not be learned: not read again for that. */
	struct oidset unlearnable;
};

static size_t record_size(const struct change_peel_cache *cache)
{
	return 2 * cache->repo->hash_algo->rawsz + 12;
}

static size_t obsolete_size(const struct change_peel_cache *cache)
{
	return cache->repo->hash_algo->rawsz + 4;
}

static void header(struct repository *r, size_t nr, size_t obsolete_nr,
		   unsigned char *out)
{
	memcpy(out, PEEL_CACHE_MAGIC, 4);
	put_be32(out + 4, r->hash_algo->format_id);
	put_be32(out + 8, nr);
	put_be32(out + 12, obsolete_nr);
}

/* Whether the file read into `cache->file` adds up; take it if so. */
static int check_file(struct change_peel_cache *cache)
{
	const unsigned char *p = (const unsigned char *)cache->file.buf;
	unsigned char expect[PEEL_CACHE_HEADER_LEN];
	size_t nr, obsolete_nr, prev = 0;

	if (cache->file.len < PEEL_CACHE_HEADER_LEN + PEEL_CACHE_FANOUT_LEN)
		return -1;
	nr = get_be32(p + 8);
	obsolete_nr = get_be32(p + 12);
	header(cache->repo, nr, obsolete_nr, expect);
	if (memcmp(p, expect, PEEL_CACHE_HEADER_LEN) ||
	    unsigned_mult_overflows(nr, record_size(cache)) ||
	    unsigned_mult_overflows(obsolete_nr, obsolete_size(cache)) ||
	    unsigned_add_overflows(nr * record_size(cache),
				   obsolete_nr * obsolete_size(cache)) ||
	    cache->file.len - PEEL_CACHE_HEADER_LEN - PEEL_CACHE_FANOUT_LEN !=
	    nr * record_size(cache) + obsolete_nr * obsolete_size(cache))
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
	cache->obsolete = cache->records + nr * record_size(cache);
	cache->nr = nr;
	cache->obsolete_nr = obsolete_nr;
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
	oidset_init(&cache->unlearnable, 0);
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

	/* The fan-out is 4-aligned: 16 bytes into a malloc()ed buffer. */
	if (!cache->nr ||
	    !bsearch_hash(head->hash, (const uint32_t *)cache->fanout,
			  cache->records, record_size(cache), &pos))
		return -1;
	return pos;
}

/* Mark the record `i` of the file as asked. */
static void mark_asked(struct change_peel_cache *cache, size_t i)
{
	if (!(cache->asked[i / 8] & (1 << (i % 8)))) {
		cache->asked[i / 8] |= 1 << (i % 8);
		cache->asked_nr++;
	}
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
	strbuf_init(&e->obsolete, 0);
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
		mark_asked(cache, i);
		oidread(&peeled, cache->records + i * record_size(cache) +
			algo->rawsz, algo);
	} else if ((learned = oidmap_get(&cache->learned, head))) {
		oidcpy(&peeled, &learned->peeled);
	} else if (learn_head(cache, refname, head, &peeled)) {
		return NULL;
	}
	return lookup_commit(cache->repo, &peeled);
}

/* The facts of the record `i` of the file, if it has them all. */
static int record_facts(struct change_peel_cache *cache, size_t i,
			struct change_head_facts *facts)
{
	const struct git_hash_algo *algo = cache->repo->hash_algo;
	const unsigned char *p = cache->records + i * record_size(cache);
	unsigned flags = get_be32(p + 2 * algo->rawsz);
	size_t at = get_be32(p + 2 * algo->rawsz + 4);
	size_t nr = get_be32(p + 2 * algo->rawsz + 8);

	if (!(flags & PEEL_FACTS_FULL) ||
	    (flags & ~(PEEL_FACTS_FULL | PEEL_FACTS_ABANDONED)) ||
	    at > cache->obsolete_nr || nr > cache->obsolete_nr - at)
		return -1;
	oidread(&facts->content, p + algo->rawsz, algo);
	facts->abandoned = !!(flags & PEEL_FACTS_ABANDONED);
	facts->obsolete = cache->obsolete + at * obsolete_size(cache);
	facts->obsolete_nr = nr;
	return 0;
}

static void free_learned(void *p)
{
	struct learned_head *e = p;

	strbuf_release(&e->obsolete);
	free(e);
}

struct learn_obsolete_cb {
	struct learned_head *head;
	size_t rawsz;
};

static void learn_obsolete(const struct object_id *oid, unsigned behind,
			   void *data)
{
	struct learn_obsolete_cb *cb = data;
	unsigned char buf[4];

	strbuf_add(&cb->head->obsolete, oid->hash, cb->rawsz);
	put_be32(buf, behind);
	strbuf_add(&cb->head->obsolete, buf, 4);
	cb->head->obsolete_nr++;
}

/*
 * Learn everything about `head` (reading it and its history), if it is a
 * commit holding a commit whose history can all be read: otherwise what
 * is found depends on more than the head, and is not kept.
 */
static struct learned_head *learn_facts(struct change_peel_cache *cache,
					const struct object_id *head)
{
	struct repository *r = cache->repo;
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct strbuf err = STRBUF_INIT;
	struct learned_head *e = NULL, *old;
	struct learn_obsolete_cb cb = { .rawsz = r->hash_algo->rawsz };
	struct commit *commit;
	int type = -1;

	if (oidset_contains(&cache->unlearnable, head))
		return NULL;
	if (is_commit(r, head) && (commit = lookup_commit(r, head)))
		type = parse_metacommit(r, commit, &data, &err);
	if (type < 0 ||
	    (type != METACOMMIT_TYPE_NONE && !is_commit(r, &data.content)))
		goto out;
	CALLOC_ARRAY(e, 1);
	oidcpy(&e->entry.oid, head);
	oidcpy(&e->peeled, type == METACOMMIT_TYPE_NONE ? head : &data.content);
	e->flags = PEEL_FACTS_FULL;
	if (type == METACOMMIT_TYPE_ABANDONED)
		e->flags |= PEEL_FACTS_ABANDONED;
	strbuf_init(&e->obsolete, 0);
	cb.head = e;
	if (change_history_obsolete(r, head, learn_obsolete, &cb)) {
		strbuf_release(&e->obsolete);
		FREE_AND_NULL(e);
		goto out;
	}
	old = oidmap_put(&cache->learned, e);
	if (old)
		free_learned(old);
out:
	if (!e)
		oidset_insert(&cache->unlearnable, head);
	metacommit_data_clear(&data);
	strbuf_release(&err);
	return e;
}

int change_peel_cache_facts(struct change_peel_cache *cache,
			    const struct object_id *head,
			    struct change_head_facts *facts)
{
	struct learned_head *e;
	ssize_t i;

	if (!cache)
		return -1;
	i = find_record(cache, head);
	if (i >= 0) {
		mark_asked(cache, i);
		if (!record_facts(cache, i, facts))
			return 0;
	}
	e = oidmap_get(&cache->learned, head);
	if (!e || !(e->flags & PEEL_FACTS_FULL))
		e = learn_facts(cache, head);
	if (!e)
		return -1;
	oidcpy(&facts->content, &e->peeled);
	facts->abandoned = !!(e->flags & PEEL_FACTS_ABANDONED);
	facts->obsolete = (const unsigned char *)e->obsolete.buf;
	facts->obsolete_nr = e->obsolete_nr;
	return 0;
}

/* A change_head_known_fn: what the cache knows of `head`. */
static int head_known(const struct object_id *head, struct object_id *content,
		      int *abandoned, void *data)
{
	struct change_head_facts facts;

	if (change_peel_cache_facts(data, head, &facts))
		return -1;
	oidcpy(content, &facts.content);
	*abandoned = facts.abandoned;
	return 0;
}

void change_peel_cache_serve(struct change_peel_cache *cache,
			     struct change_table *table)
{
	table->known = cache ? head_known : NULL;
	table->known_data = cache;
}

void change_head_facts_obsolete(struct change_peel_cache *cache,
				const struct change_head_facts *facts,
				change_obsolete_fn fn, void *data)
{
	const struct git_hash_algo *algo = cache->repo->hash_algo;

	for (size_t i = 0; i < facts->obsolete_nr; i++) {
		const unsigned char *p = facts->obsolete +
			i * obsolete_size(cache);
		struct object_id oid;

		oidread(&oid, p, algo);
		fn(&oid, get_be32(p + algo->rawsz), data);
	}
}

/*
 * One record to write: a head and what it peels to, raw, its flags and
 * its obsolete commits.
 */
struct peel_record {
	const unsigned char *head;
	const unsigned char *peeled;
	unsigned flags;
	const unsigned char *obsolete;
	size_t obsolete_nr;
};

static int compare_records(const void *a, const void *b, void *rawsz)
{
	const struct peel_record *x = a, *y = b;

	return memcmp(x->head, y->head, *(size_t *)rawsz);
}

/*
 * The records to write: those of the file (only those asked, if they
 * are less than half of it and every change was asked) but those learned
 * again, and those learned, sorted by head.
 */
static size_t collect_records(struct change_peel_cache *cache,
			      int asked_every_change,
			      struct peel_record **out)
{
	const struct git_hash_algo *algo = cache->repo->hash_algo;
	int all = !asked_every_change || cache->asked_nr * 2 >= cache->nr;
	struct peel_record *records;
	struct oidmap_iter iter;
	struct learned_head *e;
	size_t nr = 0;

	ALLOC_ARRAY(records, st_add(cache->nr,
				    oidmap_get_size(&cache->learned)));
	for (size_t i = 0; i < cache->nr; i++) {
		const unsigned char *p = cache->records + i * record_size(cache);
		struct change_head_facts facts;
		struct object_id head;

		if (!all && !(cache->asked[i / 8] & (1 << (i % 8))))
			continue;
		oidread(&head, p, algo);
		if (oidmap_get(&cache->learned, &head))
			continue;
		records[nr].head = p;
		records[nr].peeled = p + algo->rawsz;
		if (record_facts(cache, i, &facts)) {
			records[nr].flags = 0;
			records[nr].obsolete = NULL;
			records[nr].obsolete_nr = 0;
		} else {
			records[nr].flags = PEEL_FACTS_FULL |
				(facts.abandoned ? PEEL_FACTS_ABANDONED : 0);
			records[nr].obsolete = facts.obsolete;
			records[nr].obsolete_nr = facts.obsolete_nr;
		}
		nr++;
	}
	oidmap_iter_init(&cache->learned, &iter);
	while ((e = oidmap_iter_next(&iter))) {
		records[nr].head = e->entry.oid.hash;
		records[nr].peeled = e->peeled.hash;
		records[nr].flags = e->flags;
		records[nr].obsolete = (const unsigned char *)e->obsolete.buf;
		records[nr++].obsolete_nr = e->obsolete_nr;
	}
	QSORT_S(records, nr, compare_records, (void *)&algo->rawsz);
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
	size_t obsolete_nr = 0;
	char *path = repo_common_path(r, PEEL_CACHE_FILE);

	for (size_t i = 0; i < nr; i++)
		obsolete_nr += records[i].obsolete_nr;
	/*
	 * A cache is never worth waiting for, nor an error, and is not
	 * written when optional locks are not wanted (see git(1)).
	 */
	if (nr > UINT32_MAX || obsolete_nr > UINT32_MAX ||
	    !use_optional_locks() ||
	    hold_lock_file_for_update(&lock, path, 0) < 0)
		goto out;
	header(r, nr, obsolete_nr, buf);
	strbuf_add(&out, buf, sizeof(buf));
	for (size_t i = 0; i < nr; i++)
		fanout[records[i].head[0]]++;
	for (uint32_t i = 0, total = 0; i < 256; i++) {
		total += fanout[i];
		put_be32(buf, total);
		strbuf_add(&out, buf, 4);
	}
	for (size_t i = 0, at = 0; i < nr; i++) {
		strbuf_add(&out, records[i].head, rawsz);
		strbuf_add(&out, records[i].peeled, rawsz);
		put_be32(buf, records[i].flags);
		put_be32(buf + 4, at);
		put_be32(buf + 8, records[i].obsolete_nr);
		strbuf_add(&out, buf, 12);
		at += records[i].obsolete_nr;
	}
	for (size_t i = 0; i < nr; i++)
		if (records[i].obsolete_nr)
			strbuf_add(&out, records[i].obsolete,
				   records[i].obsolete_nr * (rawsz + 4));
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
	/* How many heads were read: tests check that a warm cache reads none. */
	trace2_data_intmax("change-peel", cache->repo, "learned",
			   oidmap_get_size(&cache->learned));
	if (oidmap_get_size(&cache->learned))
		write_cache(cache, asked_every_change);
	oidmap_clear_with_free(&cache->learned, free_learned);
	oidset_clear(&cache->unlearnable);
	free(cache->asked);
	strbuf_release(&cache->file);
	free(cache);
}
