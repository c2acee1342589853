#ifndef METACOMMIT_H
#define METACOMMIT_H

#include "hash.h"
#include "oid-array.h"
#include "strbuf.h"

struct commit;
struct oidset;
struct repository;
struct strbuf;

/*
 * A metacommit records how one commit (its "content") was produced from
 * others. It is a commit with the empty tree whose parents are described,
 * in order, by the "parent-type" header that follows "committer":
 *
 *   c  the content commit (always the first parent), or
 *   a  the content of an abandoned change, instead of "c";
 *   r  a commit made obsolete by the content commit;
 *   o  a commit the content commit was cherry-picked from.
 *
 * A branch of metacommits under refs/metas/ is a "change"; see the evolve
 * design document (Documentation/technical/evolve).
 */
#define METACOMMIT_HEADER "parent-type"

/* Where change refs live. */
#define CHANGES_REF_PREFIX "refs/metas/"
/* Where inactive changes live, e.g. those that "git evolve" deleted. */
#define HIDDEN_CHANGES_REF_PREFIX "refs/hiddenmetas/"

struct metacommit_data {
	/* The content (or, if abandoned, the abandoned) commit. */
	struct object_id content;
	/* Commits obsoleted by the content commit, in parent order. */
	struct oid_array replace;
	/* Commits the content commit was copied from, in parent order. */
	struct oid_array origin;
	unsigned abandoned:1;
};

#define METACOMMIT_DATA_INIT { \
	.replace = OID_ARRAY_INIT, \
	.origin = OID_ARRAY_INIT, \
}

void metacommit_data_clear(struct metacommit_data *data);

enum metacommit_type {
	/* A normal commit, i.e. not a metacommit. */
	METACOMMIT_TYPE_NONE = 0,
	/* A metacommit whose first parent is the content commit. */
	METACOMMIT_TYPE_NORMAL,
	/* A metacommit whose first parent is an abandoned commit. */
	METACOMMIT_TYPE_ABANDONED,
};

/*
 * Classify `commit`. Only the commit header is looked at, so a commit whose
 * message merely contains a "parent-type" line is a normal commit. So is a
 * commit whose tree is not the empty tree, whatever its headers say: the
 * commit graph then tells it apart without reading the commit.
 *
 * Returns the `enum metacommit_type` of the commit. If it is a metacommit and
 * `data` is not NULL, `data` (which must be initialized) is filled with its
 * parents. A metacommit whose "parent-type" header does not describe its
 * parents is malformed: then -1 is returned, `data` is left empty and the
 * reason is appended to `err`.
 */
int parse_metacommit(struct repository *r, struct commit *commit,
		     struct metacommit_data *data, struct strbuf *err);

/*
 * Whether `commit` is a metacommit, well-formed or not: whether it has the
 * empty tree and a "parent-type" header. Such a commit must never be
 * checked out.
 */
int is_metacommit(struct repository *r, struct commit *commit);

/*
 * Whether `refname` names a change: it is under refs/metas/,
 * refs/hiddenmetas/ or refs/remotes/<remote>/metas/.
 */
int is_change_refname(const char *refname);

/*
 * If `refname` names a change fetched from a remote,
 * "refs/remotes/<remote>/metas/<name>", return its <name> (a pointer into
 * `refname`); otherwise NULL.
 */
const char *remote_change_name(const char *refname);

/*
 * Add to `versions` every earlier version in the history of the change
 * head `head`: what it replaces, directly or through older metacommits
 * (those metacommits and the commits they hold), not `head` itself. A
 * version already in `versions` is not walked again, so one set can
 * gather the histories of many heads. The walk is iterative; a malformed
 * metacommit ends its branch of the history.
 */
void change_history_add(struct repository *r, const struct object_id *head,
			struct oidset *versions);

/*
 * Called by change_history_obsolete() for each commit a change makes
 * obsolete, with how many versions came after it.
 */
typedef void (*change_obsolete_fn)(const struct object_id *obsolete,
				   unsigned behind, void *data);

/*
 * Call `fn` for each commit that the change whose head is `head` makes
 * obsolete: for each commit its history replaces, directly or through
 * older metacommits, the content of that metacommit, or the commit itself
 * if it is no metacommit, with how many versions came after it (1 for
 * what `head` replaces). The order is that of a walk of the history from
 * `head`, the same every time; a version reached twice counts once. The
 * walk is iterative. Returns 0, or -1 if an object of the history could
 * not be read or is malformed: the calls made depend then on what the
 * repository holds, not on `head` alone.
 */
int change_history_obsolete(struct repository *r, const struct object_id *head,
			    change_obsolete_fn fn, void *cb_data);

/*
 * What a change's ref held before it moved to `head`, as its reflog would
 * say, read from its history: each version of a change replaces the one
 * before it first ("parent-type r"), and its first version is a plain
 * commit, which replaces nothing.
 *
 * With `nth` >= 0, find the version `nth` versions before `head` (0 for
 * `head`); otherwise the newest one committed no later than `at_time`.
 * Returns 0 with it in `version`; 1 if the history is not that long or
 * that old, with its oldest version in `version` and in `*versions` how
 * many came after it; or -1 if a version could not be read, is malformed
 * or comes back (a cycle, made with "git replace"). A version that
 * replaced several (a squash, a merge of two versions) continues the
 * first of them, whichever change held it.
 */
int change_earlier_version(struct repository *r, const struct object_id *head,
			   int nth, timestamp_t at_time,
			   struct object_id *version, int *versions);

/*
 * A change given by name stands for its content. If `refname` names a
 * change and `oid`, its value, is a well-formed metacommit, replace `oid`
 * with the metacommit's content (or abandoned) commit and return 1;
 * otherwise leave it alone and return 0.
 */
int peel_change_head(struct repository *r, const char *refname,
		     struct object_id *oid);

/*
 * Write a metacommit for `data` with the (human-readable) message `message`,
 * which describes the operation that produced it, such as "amend". The empty
 * tree is written to the object database as well. Returns 0 and stores the
 * new object name in `result` on success, -1 with a message in `err`
 * otherwise.
 */
int write_metacommit(struct repository *r, const struct metacommit_data *data,
		     const char *message, struct object_id *result,
		     struct strbuf *err);

/*
 * Append the full refname of the change called `name` to `refname`. A change
 * may be named "<name>", "metas/<name>" or "refs/metas/<name>". The result is
 * not checked for validity (this is also used for patterns).
 */
void strbuf_add_change_refname(struct strbuf *refname, const char *name);

/*
 * Append "refs/metas/<name>" to `refname`: the local change that has the
 * name of a remote change (remote_change_name()), which may itself begin
 * with "metas/", unlike the name a user types.
 */
void strbuf_add_local_change_refname(struct strbuf *refname, const char *name);

#endif /* METACOMMIT_H */
