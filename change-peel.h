#ifndef CHANGE_PEEL_H
#define CHANGE_PEEL_H

/*
 * A cache of what the heads of changes peel to, for the commands that
 * peel every change at once ("git log --decorate"): that a metacommit
 * holds a given commit, or that a commit is not a metacommit, never
 * changes, but finding it out reads the object, which costs more than
 * everything else a decoration needs when the commit graph cannot tell.
 */

struct commit;
struct object_id;
struct repository;
struct change_peel_cache;

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
 * Free the cache (or NULL), first writing it back if it learned
 * anything, the lock can be had at once (a cache is never worth waiting
 * for) and optional locks are wanted. If `asked_every_change` (the
 * caller asked for the head of every change), the records it did not
 * ask for are dropped when they are most of the file.
 */
void change_peel_cache_release(struct change_peel_cache *cache,
			       int asked_every_change);

#endif /* CHANGE_PEEL_H */
