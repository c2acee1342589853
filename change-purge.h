#ifndef CHANGE_PURGE_H
#define CHANGE_PURGE_H

/*
 * "git change purge": erase versions of commits from the history of the
 * changes, so that once the reflogs expire, gc removes them as unpatched
 * Git would (a secret amended out of a commit, say).
 */

#include "oid-array.h"
#include "string-list.h"

struct repository;
struct strbuf;

struct purge_options {
	/* The versions to erase: commits, not metacommits. */
	const struct oid_array *versions;
	/*
	 * Erase a version even when it is the content of a local or hidden
	 * change: that change goes back to its previous version, or is
	 * deleted when it has none (or several, or was abandoned).
	 */
	unsigned force:1;
};

struct purge_result {
	/* The local and hidden changes whose history was rewritten. */
	struct string_list rewritten;
	/* Those deleted, since their content was erased. */
	struct string_list deleted;
	/*
	 * The remote-tracking changes whose history still has one of the
	 * versions: purge never moves them; the version stays until they
	 * are deleted (on the server too, if it was pushed).
	 */
	struct string_list remote;
	/* The versions found in the history of no change. */
	struct oid_array not_found;
};

#define PURGE_RESULT_INIT { \
	.rewritten = STRING_LIST_INIT_DUP, \
	.deleted = STRING_LIST_INIT_DUP, \
	.remote = STRING_LIST_INIT_DUP, \
	.not_found = OID_ARRAY_INIT, \
}

void purge_result_release(struct purge_result *result);

/*
 * Remove `opts->versions` from the history of every local and hidden
 * change: each metacommit that has one as content is left out (what
 * replaced it now replaces what it replaced), each edge to one is
 * dropped, and the metacommits above are written again, with their
 * messages. Every other version, and every change, is kept. The changes
 * move in one ref transaction that verifies their old values.
 *
 * Without `opts->force`, refuses (before writing anything) when a
 * version is the content of a local or hidden change. Returns 0 and
 * fills `result`, or -1 with a message in `err`.
 */
int purge_versions(struct repository *r, const struct purge_options *opts,
		   struct purge_result *result, struct strbuf *err);

#endif /* CHANGE_PURGE_H */
