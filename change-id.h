#ifndef CHANGE_ID_H
#define CHANGE_ID_H

/*
 * The format of the "change-id" commit header that Jujutsu and GitButler
 * write and Gerrit reads: 16 random bytes as 32 "reverse hex" digits,
 * 'z' for 0 down to 'k' for 15. While changes are recorded, commands
 * give it the meaning of the change graph (set_change_id_header() in
 * change-writer.h): a commit that continues a change (a "modify": commit
 * --amend, rebase, evolve) keeps the id of the commit it replaces; any
 * other commit (a new one, a cherry-pick, a revert) starts a change and
 * gets a new id.
 */

#include "strbuf.h"

struct commit;
struct commit_extra_header;
struct repository;

#define CHANGE_ID_HEADER "change-id"
/* The length of an id: two reverse hex digits per byte. */
#define CHANGE_ID_LEN 32

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
 * Set `id` to a new id, from random bytes. Returns 0, or -1 (leaving
 * `id` alone) if no random bytes can be had.
 */
int change_id_new(struct strbuf *id);

/* The byte that the first two digits of the well-formed `id` encode. */
unsigned char change_id_first_byte(const char *id);

/*
 * Make `id` the change-id header of the commit about to be written with
 * the extra headers `*extra` (a list from read_commit_extra_headers(),
 * or NULL): any change-id header in it is removed, and one with `id` is
 * put first, so that it follows "committer" as other tools write it.
 * Which id a commit carries is decided above this file, by
 * set_change_id_header() (change-writer.h).
 */
void change_id_put_header(struct commit_extra_header **extra,
			  const char *id);

#endif
