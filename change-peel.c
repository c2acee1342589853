/*
 * The cache of what the heads of changes are (see change-peel.h).
 *
 * $GIT_COMMON_DIR/metas-peeled holds "MPC3", the format id of the hash,
 * the number of records and the number of obsolete commits (4 bytes each,
 * network order), a fan-out table of 256 cumulative counts by the first
 * byte of the head (as in a pack index), the records sorted by head, then
 * the obsolete commits. A record is the head's object name and what it
 * peels to, raw (the head itself for a commit that is not a metacommit: a
 * commit cannot hold itself), then, 4 bytes each, its flags, where its
 * obsolete commits start and how many there are. An obsolete commit is
 * its object name, raw, and how many versions came after it (4 bytes).
 * Last comes the reverse index: the position of each record (4 bytes),
 * ordered by what the records peel to, then by head, so that the heads
 * holding a commit are found from the commit (change_peel_cache_holders()).
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
#include "string-list.h"
#include "trace2.h"
#include "wrapper.h"

#define PEEL_CACHE_FILE "metas-peeled"
#define PEEL_CACHE_MAGIC "MPC3"
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

/* A change deferred by change_peel_cache_defer(). */
struct deferred_change {
	/* The first 8 bytes of its head, to sort by. */
	uint64_t key;
	/* Which head of `deferred_heads` is its head. */
	size_t head;
	/* Where its refname starts in `deferred_names`. */
	size_t refname;
};

struct change_peel_cache {
	struct repository *repo;
	/*
	 * The file as read (`map` if it is mapped, else `file` holds
	 * it), and where its parts start.
	 */
	const unsigned char *data;
	size_t len;
	void *map;
	struct strbuf file;
	const unsigned char *records;
	const unsigned char *fanout;
	const unsigned char *obsolete;
	const unsigned char *reverse;
	size_t nr, obsolete_nr;
	/*
	 * The changes deferred, sorted by head once all are, and
	 * their heads (raw) and refnames (NUL-terminated), one after
	 * the other.
	 */
	struct deferred_change *deferred;
	size_t deferred_nr, deferred_alloc;
	struct strbuf deferred_heads;
	struct strbuf deferred_names;
	/* Which records were asked (one bit each), and how many. */
	unsigned char *asked;
	size_t asked_nr;
	/* Of struct learned_head. */
	struct oidmap learned;
	/* Heads that could not be learned: not read again for that. */
	struct oidset unlearnable;
	/* How many were learned when the file was last written. */
	size_t learned_flushed;
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

/* Whether the file read (`data`, `len`) adds up; take it if so. */
static int check_file(struct change_peel_cache *cache)
{
	const unsigned char *p = cache->data;
	unsigned char expect[PEEL_CACHE_HEADER_LEN];
	size_t nr, obsolete_nr, prev = 0;

	if (cache->len < PEEL_CACHE_HEADER_LEN + PEEL_CACHE_FANOUT_LEN)
		return -1;
	nr = get_be32(p + 8);
	obsolete_nr = get_be32(p + 12);
	header(cache->repo, nr, obsolete_nr, expect);
	if (memcmp(p, expect, PEEL_CACHE_HEADER_LEN) ||
	    unsigned_mult_overflows(nr, record_size(cache)) ||
	    unsigned_mult_overflows(obsolete_nr, obsolete_size(cache)) ||
	    unsigned_add_overflows(nr * record_size(cache),
				   obsolete_nr * obsolete_size(cache)) ||
	    unsigned_add_overflows(nr * record_size(cache) +
				   obsolete_nr * obsolete_size(cache), nr * 4) ||
	    cache->len - PEEL_CACHE_HEADER_LEN - PEEL_CACHE_FANOUT_LEN !=
	    nr * record_size(cache) + obsolete_nr * obsolete_size(cache) +
	    nr * 4)
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
	cache->reverse = cache->obsolete + obsolete_nr * obsolete_size(cache);
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

/*
 * Map the file at `path`, or read it where a mapped file cannot be
 * replaced (as the cache may be while it is read).
 */
static void read_file(struct change_peel_cache *cache, const char *path)
{
#ifndef MMAP_PREVENTS_DELETE
	struct stat st;
	int fd = git_open(path);

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_size > 0 &&
	    (uintmax_t)st.st_size <= SIZE_MAX) {
		cache->len = st.st_size;
		cache->map = xmmap_gently(NULL, cache->len, PROT_READ,
					  MAP_PRIVATE, fd, 0);
		if (cache->map == MAP_FAILED)
			cache->map = NULL;
		cache->data = cache->map;
	}
	close(fd);
#else
	if (strbuf_read_file(&cache->file, path, 0) >= 0) {
		cache->data = (const unsigned char *)cache->file.buf;
		cache->len = cache->file.len;
	}
#endif
}

/* Forget the file read. */
static void release_file(struct change_peel_cache *cache)
{
	if (cache->map)
		munmap(cache->map, cache->len);
	cache->map = NULL;
	strbuf_release(&cache->file);
	cache->data = NULL;
	cache->len = 0;
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
	strbuf_init(&cache->deferred_heads, 0);
	strbuf_init(&cache->deferred_names, 0);
	read_file(cache, path);
	if (cache->data && check_file(cache))
		release_file(cache);
	free(path);
	return cache;
}

/* The index of the record of `head` in the file, or -1. */
static ssize_t find_record(struct change_peel_cache *cache,
			   const struct object_id *head)
{
	uint32_t pos;

	/* The fan-out is 4-aligned: 16 bytes into a mapped or malloc()ed buffer. */
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

struct reverse_order {
	const struct peel_record *records;
	size_t rawsz;
};

static int compare_peeled(const void *a, const void *b, void *data)
{
	const struct reverse_order *order = data;
	const struct peel_record *x = &order->records[*(const uint32_t *)a];
	const struct peel_record *y = &order->records[*(const uint32_t *)b];
	int cmp = memcmp(x->peeled, y->peeled, order->rawsz);

	return cmp ? cmp : memcmp(x->head, y->head, order->rawsz);
}

/* Append the reverse index of the `nr` `records` (see above) to `out`. */
static void add_reverse_index(const struct peel_record *records, size_t nr,
			      size_t rawsz, struct strbuf *out)
{
	struct reverse_order order = {
		.records = records,
		.rawsz = rawsz,
	};
	uint32_t *positions;
	unsigned char buf[4];

	ALLOC_ARRAY(positions, nr);
	for (size_t i = 0; i < nr; i++)
		positions[i] = i;
	QSORT_S(positions, nr, compare_peeled, &order);
	for (size_t i = 0; i < nr; i++) {
		put_be32(buf, positions[i]);
		strbuf_add(out, buf, 4);
	}
	free(positions);
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
	add_reverse_index(records, nr, rawsz, &out);
	if (write_in_full(get_lock_file_fd(&lock), out.buf, out.len) < 0)
		rollback_lock_file(&lock);
	else
		commit_lock_file(&lock);
out:
	free(records);
	strbuf_release(&out);
	free(path);
}

void change_peel_cache_flush(struct change_peel_cache *cache,
			     int asked_every_change)
{
	size_t learned;

	if (!cache)
		return;
	learned = oidmap_get_size(&cache->learned);
	if (learned == cache->learned_flushed)
		return;
	/* How many heads were read: tests check that a warm cache reads none. */
	trace2_data_intmax("change-peel", cache->repo, "learned", learned);
	write_cache(cache, asked_every_change);
	cache->learned_flushed = learned;
}

void change_peel_cache_drop(struct change_peel_cache *cache)
{
	if (!cache)
		return;
	oidmap_clear_with_free(&cache->learned, free_learned);
	oidset_clear(&cache->unlearnable);
	free(cache->asked);
	free(cache->deferred);
	strbuf_release(&cache->deferred_heads);
	strbuf_release(&cache->deferred_names);
	release_file(cache);
	free(cache);
}

void change_peel_cache_release(struct change_peel_cache *cache,
			       int asked_every_change)
{
	if (!cache)
		return;
	if (!oidmap_get_size(&cache->learned))
		trace2_data_intmax("change-peel", cache->repo, "learned", 0);
	change_peel_cache_flush(cache, asked_every_change);
	change_peel_cache_drop(cache);
}

void change_peel_cache_defer(struct change_peel_cache *cache,
			     const char *refname, const struct object_id *head)
{
	size_t rawsz = cache->repo->hash_algo->rawsz;
	struct deferred_change *deferred;

	if (!cache->deferred_alloc) {
		/* Room for as many changes as the file knows, at once. */
		cache->deferred_alloc = cache->nr + 64;
		ALLOC_ARRAY(cache->deferred, cache->deferred_alloc);
		strbuf_grow(&cache->deferred_heads,
			    st_mult(cache->deferred_alloc, rawsz));
		strbuf_grow(&cache->deferred_names,
			    st_mult(cache->deferred_alloc, 24));
	}
	ALLOC_GROW(cache->deferred, cache->deferred_nr + 1,
		   cache->deferred_alloc);
	deferred = &cache->deferred[cache->deferred_nr++];
	deferred->key = get_be64(head->hash);
	deferred->head = cache->deferred_heads.len / rawsz;
	deferred->refname = cache->deferred_names.len;
	strbuf_add(&cache->deferred_heads, head->hash, rawsz);
	strbuf_add(&cache->deferred_names, refname, strlen(refname) + 1);
}

static const unsigned char *deferred_head(struct change_peel_cache *cache,
					  const struct deferred_change *deferred)
{
	return (const unsigned char *)cache->deferred_heads.buf +
		deferred->head * cache->repo->hash_algo->rawsz;
}

static int compare_deferred(const void *a, const void *b, void *data)
{
	const struct deferred_change *x = a, *y = b;
	struct change_peel_cache *cache = data;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return memcmp(deferred_head(cache, x), deferred_head(cache, y),
		      cache->repo->hash_algo->rawsz);
}

/*
 * Sort the deferred changes by head: by first byte, as the records are
 * (see the fan-out), then each run of the same first byte, which is
 * small enough to be sorted within the processor's caches.
 */
static void sort_deferred(struct change_peel_cache *cache)
{
	size_t start[257] = { 0 };
	struct deferred_change *sorted;

	for (size_t i = 0; i < cache->deferred_nr; i++)
		start[(cache->deferred[i].key >> 56) + 1]++;
	for (int b = 0; b < 256; b++)
		start[b + 1] += start[b];
	ALLOC_ARRAY(sorted, cache->deferred_nr);
	for (size_t i = 0; i < cache->deferred_nr; i++)
		sorted[start[cache->deferred[i].key >> 56]++] =
			cache->deferred[i];
	free(cache->deferred);
	cache->deferred = sorted;
	cache->deferred_alloc = cache->deferred_nr;
	/* Each start is now where the next first byte starts. */
	for (size_t b = 0, from = 0; b < 256; from = start[b++])
		QSORT_S(sorted + from, start[b] - from, compare_deferred,
			cache);
}

static const unsigned char *record_head(struct change_peel_cache *cache,
					size_t i)
{
	return cache->records + i * record_size(cache);
}

static const unsigned char *record_peeled(struct change_peel_cache *cache,
					  size_t i)
{
	return record_head(cache, i) + cache->repo->hash_algo->rawsz;
}

/*
 * memcmp() of two object names, raw, but faster: most differ in their
 * first 8 bytes, compared as one number.
 */
static int compare_hashes(const unsigned char *a, const unsigned char *b,
			  size_t rawsz)
{
	uint64_t x = get_be64(a), y = get_be64(b);

	if (x != y)
		return x < y ? -1 : 1;
	return memcmp(a, b, rawsz);
}

/* How the head of the record `i` sorts against that of `deferred`. */
static int compare_record_head(struct change_peel_cache *cache, size_t i,
			       const struct deferred_change *deferred)
{
	return compare_hashes(record_head(cache, i),
			      deferred_head(cache, deferred),
			      cache->repo->hash_algo->rawsz);
}

void change_peel_cache_defer_done(struct change_peel_cache *cache,
				  change_peel_unknown_fn fn, void *data)
{
	size_t record = 0, kept = 0;

	/*
	 * The deferred changes and the records both sorted by head, one
	 * pass over each finds which heads the file knows: less than a
	 * search of the file for each change, whose reads all miss the
	 * processor's caches at 100,000 changes.
	 */
	sort_deferred(cache);
	for (size_t i = 0; i < cache->deferred_nr; i++) {
		struct deferred_change *deferred = &cache->deferred[i];
		const unsigned char *head = deferred_head(cache, deferred);
		int cmp = -1;

		while (record < cache->nr &&
		       (cmp = compare_record_head(cache, record, deferred)) < 0)
			record++;
		if (record < cache->nr && !cmp) {
			mark_asked(cache, record);
			cache->deferred[kept++] = *deferred;
		} else {
			struct object_id oid;

			oidread(&oid, head, cache->repo->hash_algo);
			fn(cache->deferred_names.buf + deferred->refname, &oid,
			   data);
		}
	}
	cache->deferred_nr = kept;
	/* How many wait for their commit to be shown: tests check it. */
	trace2_data_intmax("change-peel", cache->repo, "deferred", kept);
}

/*
 * The hash that the `i`-th of a sorted list sorts by: the head of a
 * deferred change, or what a record of the reverse index peels to (NULL
 * for a position out of bounds, which only a file that lies has).
 */
typedef const unsigned char *(*sorted_hash_fn)(struct change_peel_cache *cache,
					       size_t i);

static const unsigned char *nth_deferred_head(struct change_peel_cache *cache,
					      size_t i)
{
	return deferred_head(cache, &cache->deferred[i]);
}

static const unsigned char *nth_reverse_peeled(struct change_peel_cache *cache,
					       size_t i)
{
	size_t record = get_be32(cache->reverse + 4 * i);

	return record < cache->nr ? record_peeled(cache, record) : NULL;
}

/*
 * The first of the `nr` entries of a list sorted by `nth` whose hash is
 * not below `hash`, or `nr`. A file that lies finds nothing beyond the
 * lie.
 */
static size_t lower_bound(struct change_peel_cache *cache, size_t nr,
			  sorted_hash_fn nth, const unsigned char *hash)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const unsigned char *at = nth(cache, mid);

		if (!at)
			return nr;
		if (compare_hashes(at, hash, cache->repo->hash_algo->rawsz) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void change_peel_cache_holders(struct change_peel_cache *cache,
			       const struct object_id *commit,
			       change_peel_holder_fn fn, void *data)
{
	size_t rawsz = cache->repo->hash_algo->rawsz;
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *item;

	if (!cache->deferred_nr)
		return;
	for (size_t i = lower_bound(cache, cache->nr, nth_reverse_peeled,
				    commit->hash);
	     i < cache->nr; i++) {
		size_t record = get_be32(cache->reverse + 4 * i);
		const unsigned char *head;

		if (record >= cache->nr ||
		    memcmp(record_peeled(cache, record), commit->hash, rawsz))
			break;
		head = record_head(cache, record);
		for (size_t d = lower_bound(cache, cache->deferred_nr,
					    nth_deferred_head, head);
		     d < cache->deferred_nr &&
		     !memcmp(deferred_head(cache, &cache->deferred[d]), head,
			     rawsz); d++)
			string_list_append(&refnames, cache->deferred_names.buf +
					   cache->deferred[d].refname);
	}
	string_list_sort(&refnames);
	string_list_remove_duplicates(&refnames, 0);
	for_each_string_list_item(item, &refnames)
		fn(item->string, data);
	string_list_clear(&refnames, 0);
}
