#ifndef CHANGE_PEEL_H
#define CHANGE_PEEL_H

#include "hash.h"
#include "metacommit.h"

/*
 * A cache of what the heads of changes are, for the commands that read
 * every change at once ("git log --decorate", the change graph): that a
 * metacommit holds a given commit, or that a commit is not a metacommit,
 * whether it is abandoned, and which commits its history makes obsolete,
 * never changes, but finding it out reads the objects, which costs more
 * than everything else such a command does with most changes.
 */

struct change_peel_cache;
struct change_table;
struct commit;
struct repository;

/* What a head is: see change_peel_cache_facts(). */
struct change_head_facts {
	/* What it holds (itself if it is no metacommit). */
	struct object_id content;
	unsigned abandoned:1;
	/* Its obsolete commits, for change_head_facts_obsolete(). */
	const unsigned char *obsolete;
	size_t obsolete_nr;
};

/*
 * Load the cache of `r` from $GIT_COMMON_DIR/metas-peeled. A missing or
 * malformed file gives an empty cache. Returns NULL (no cache) while
 * replace refs are in use, since objects may then read as others. Never
 * dies.
 */
struct change_peel_cache *change_peel_cache_load(struct repository *r);

/*
 * The commit that the change `refname`, whose head is `head`, stands for
 * (see peel_change_head()): the content of a metacommit, or the head
 * itself. With the cache knowing the head, no object is read; otherwise
 * the objects are read and the cache learns them, for
 * change_peel_cache_release() to keep. Returns NULL (peel the head
 * yourself) without a cache, for a ref that is not a change, and when
 * the head or what it holds is not a commit or is missing.
 */
struct commit *change_peel_cache_commit(struct change_peel_cache *cache,
					const char *refname,
					const struct object_id *head);

/*
 * What the head `head` of a change is: what it holds, whether it is
 * abandoned, and (see change_head_facts_obsolete()) the commits its
 * history makes obsolete. With the cache knowing it, no object is read;
 * otherwise the objects are read and the cache learns them. Returns 0,
 * or -1 (read the head yourself) without a cache, when the head or what
 * it holds is not a commit, or when its history cannot all be read.
 * `facts` is valid until the cache is released.
 */
int change_peel_cache_facts(struct change_peel_cache *cache,
			    const struct object_id *head,
			    struct change_head_facts *facts);

/*
 * Let `table` ask `cache` what the heads it reads are, before reading
 * them (see change_head_known_fn in change-table.h); with NULL, stop.
 */
void change_peel_cache_serve(struct change_peel_cache *cache,
			     struct change_table *table);

/*
 * Call `fn` for each commit that the head of `facts` makes obsolete, as
 * change_history_obsolete() would.
 */
void change_head_facts_obsolete(struct change_peel_cache *cache,
				const struct change_head_facts *facts,
				change_obsolete_fn fn, void *data);

/*
 * For "git log --decorate", which needs to know what a change holds only
 * for the commits it shows: defer each change (the ref `refname` at
 * `head`), without reading anything, then call
 * change_peel_cache_defer_done(), which calls `fn` for each deferred
 * change whose head the cache does not know (peel it now, say with
 * change_peel_cache_commit()), and keeps the others for
 * change_peel_cache_holders() to find from the commit they hold.
 */
typedef void (*change_peel_unknown_fn)(const char *refname,
				       const struct object_id *head,
				       void *data);
void change_peel_cache_defer(struct change_peel_cache *cache,
			     const char *refname, const struct object_id *head);
void change_peel_cache_defer_done(struct change_peel_cache *cache,
				  change_peel_unknown_fn fn, void *data);

/*
 * Call `fn` with the refname of each deferred change whose head the
 * cache knows to hold `commit`, in refname order. Costs a search of the
 * cache, whatever the number of changes.
 */
typedef void (*change_peel_holder_fn)(const char *refname, void *data);
void change_peel_cache_holders(struct change_peel_cache *cache,
			       const struct object_id *commit,
			       change_peel_holder_fn fn, void *data);

/*
 * Write the cache (or NULL) back if it learned anything since it was
 * read or last written, the lock can be had at once (a cache is never
 * worth waiting for) and optional locks are wanted. If
 * `asked_every_change` (the caller asked for the head of every change),
 * the records it did not ask for are dropped when they are most of the
 * file.
 */
void change_peel_cache_flush(struct change_peel_cache *cache,
			     int asked_every_change);

/* Flush the cache (or NULL) as above, and free it. */
void change_peel_cache_release(struct change_peel_cache *cache,
			       int asked_every_change);

/*
 * Free the cache (or NULL) without writing what it learned: for a dry
 * run, whose heads are metacommits it discards, and which asks for
 * those instead of the heads of the changes it would move.
 */
void change_peel_cache_drop(struct change_peel_cache *cache);

#endif /* CHANGE_PEEL_H */
