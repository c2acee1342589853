#ifndef CHANGE_ID_H
#define CHANGE_ID_H

/*
 * The "change-id" commit header that Jujutsu and GitButler write and
 * Gerrit reads: 16 random bytes as 32 "reverse hex" digits, 'z' for 0
 * down to 'k' for 15. While changes are recorded, commands give it the
 * meaning of the change graph: a commit that continues a change (a
 * "modify": commit --amend, rebase, evolve) keeps the id of the commit
 * it replaces; any other commit (a new one, a cherry-pick, a revert)
 * starts a change and gets a new id.
 */

#include "strbuf.h"

struct commit;
struct commit_extra_header;
struct repository;

#define CHANGE_ID_HEADER "change-id"
/* The length of an id: two reverse hex digits per byte. */
#define CHANGE_ID_LEN 32

/*
 * Whether commands write the header: only while they record changes
 * (repo_changes_enabled()), and then as the GIT_TEST_CHANGE_ID_HEADER
 * environment variable says if it is set (for the test suite), otherwise
 * as the core.changeIdHeader configuration says (default true).
 */
int change_id_header_enabled(struct repository *r);

/* Whether the `len` bytes at `id` are a well-formed id. */
int change_id_is_valid(const char *id, size_t len);

/*
 * Set `id` to the id in the header of `commit` and return 1; return 0,
 * leaving `id` alone, if it has none or a malformed one, or if it cannot
 * be read (never dies).
 */
int commit_change_id(struct repository *r, struct commit *commit,
		     struct strbuf *id);

/*
 * Give the commit about to be written with the extra headers `*extra`
 * (a list from read_commit_extra_headers(), or NULL) its change-id
 * header, if change_id_header_enabled(): the id of `continues`, the
 * commit whose change it continues (NULL for a commit that starts a
 * change), or a new one when that has none. Any change-id header
 * already in the list is replaced. Never dies: if no random bytes can
 * be had, the commit is left without the header.
 */
void set_change_id_header(struct repository *r,
			  struct commit_extra_header **extra,
			  struct commit *continues);

#endif
