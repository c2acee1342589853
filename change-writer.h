#ifndef CHANGE_WRITER_H
#define CHANGE_WRITER_H

/*
 * The one writer of changes: every command that records what it did to
 * commits (commit, merge, am, the sequencer, replay, history, "git
 * change", evolve) hands its moves to the functions below, which write
 * the metacommits (metacommit.h) and move the changes in one ref
 * transaction that verifies their old values, saving what --abort needs.
 * Only refs under the change namespaces are written from what is read
 * back from the repository.
 */
#include "metacommit.h"
#include "strbuf.h"

struct commit;
struct repository;
struct string_list;
struct strmap;

/* Allow a change to be moved to a commit that does not replace its head. */
#define METACOMMIT_UPDATE_FORCE    (1 << 0)
/*
 * Never advance an existing change: always create a new one. Replaced and
 * origin parents are still recorded as the heads of the changes that
 * contain them, so no history is lost.
 */
#define METACOMMIT_UPDATE_NOAPPEND (1 << 1)

/*
 * Record the relationships described by `metacommit` in the repository.
 *
 * If `change` is NULL, every change whose head (or the head's content) is
 * one of the replaced commits is advanced, and the heads of those changes
 * become the replaced parents of the new metacommit. If there is no such
 * change, a new one is created with a name derived from the subject of the
 * content commit. Nothing is done if the metacommit would only name its
 * content and some change already has that content.
 *
 * If `change` is given (in any form accepted by strbuf_add_change_refname()),
 * only that change is created or updated. Unless METACOMMIT_UPDATE_FORCE is
 * given, an existing change is only updated if its head is replaced.
 *
 * If the metacommit has no replaced or origin parents and is not abandoned,
 * the change points at the content commit itself rather than at a trivial
 * metacommit.
 *
 * `reason` is used as the metacommit's message and the reflog message.
 * All refs are updated in a single transaction that verifies their old
 * values. If `changes` is not NULL, the refnames of the updated changes are
 * appended to it, each with a `util` pointing to a newly allocated copy of
 * the previous head, or NULL for a created change (free the list with
 * `string_list_clear(changes, 1)`).
 *
 * Returns 0 on success, -1 with a message in `err` on failure.
 */
int record_metacommit(struct repository *r,
		      const struct metacommit_data *metacommit,
		      const char *change, unsigned flags, const char *reason,
		      struct string_list *changes, struct strbuf *err);

/*
 * To be called by commands with "modify" semantics, which create
 * `new_commit` as a replacement of `old_commit` (e.g. "commit --amend"):
 * records the replacement in the change graph, so that the descendants of
 * the old commit can later be moved onto the new one. This is
 * record_rewrites() for a single pair of type REWRITE_MODIFY.
 */
int modify_change(struct repository *r, const struct object_id *old_commit,
		  const struct object_id *new_commit, const char *reason,
		  struct strbuf *err);

/*
 * Whether commands record what they do to commits in changes: the
 * GIT_TEST_ENABLE_CHANGES environment variable if set (for the test suite),
 * otherwise the core.enableChanges configuration, which defaults to true.
 */
int repo_changes_enabled(struct repository *r);

/*
 * Whether commands write the change-id header (change-id.h): only while
 * they record changes (repo_changes_enabled()), and then as the
 * GIT_TEST_CHANGE_ID_HEADER environment variable says if it is set (for
 * the test suite), otherwise as the core.changeIdHeader configuration
 * says (default true).
 */
int change_id_header_enabled(struct repository *r);

/*
 * Give the commit about to be written with the extra headers `*extra`
 * (a list from read_commit_extra_headers(), or NULL) its change-id
 * header, if change_id_header_enabled(): the id of `continues`, the
 * commit whose change it continues (NULL for a commit that starts a
 * change), or a new one when that has none. Any change-id header
 * already in the list is replaced. Never dies: if no random bytes can
 * be had, the commit is left without the header.
 */
struct commit_extra_header;
void set_change_id_header(struct repository *r,
			  struct commit_extra_header **extra,
			  struct commit *continues);

/*
 * The content index (see change-writer.c) read as it is, stale entries
 * included: the changes that had `content` as their commit at some time.
 * Changes that only came by update-ref are not there.
 */
struct content_index_cache {
	/*
	 * One bucket per first byte of the object name (of the id for
	 * changes_with_id()), read once. A cache serves one index.
	 */
	struct strbuf buckets[256];
	unsigned char loaded[256];
};
void content_index_cache_release(struct content_index_cache *cache);

/*
 * Append to `refnames` (a string list that owns its strings) the refnames
 * the content index ever listed for `content`, each once. With a `cache`
 * (or NULL), each bucket is read once however many commits are asked.
 */
void content_index_listed(struct repository *r, struct content_index_cache *cache,
			  const struct object_id *content,
			  struct string_list *refnames);

/*
 * Likewise, the remote changes (refs/remotes/<remote>/metas/) whose
 * fetched history held `content`: as their commit, or as a version that
 * a newer one replaced. These refnames are only ever read.
 */
void content_index_listed_remote(struct repository *r,
				 struct content_index_cache *cache,
				 const struct object_id *content,
				 struct string_list *refnames);

/*
 * Let the content index learn the remote changes among the refs a fetch
 * moved (refs/remotes/<remote>/metas/<name>): the commit of each, and
 * the commits its history made obsolete since the version fetched
 * before, so that "git log --decorate" finds the versions that only a
 * collaborator's amend replaced. The cost is that of the histories
 * fetched; other refs are ignored.
 */
struct ref_move;
void index_fetched_changes(struct repository *r, const struct ref_move *moves,
			   size_t nr);

/*
 * Append `line` to the file `path` (made, with its directory, if it is
 * missing), as the indexes and the state files that record what commands
 * did are kept. A single short write with O_APPEND does not interleave
 * with a concurrent one, so no lock is needed. Failures are warnings.
 */
void append_change_file(struct repository *r, const char *path,
			const struct strbuf *line);

/* Whether any change has had a change id: the id index exists. */
int change_ids_indexed(struct repository *r);

/*
 * Append to `out` (a string list that owns its strings) the local changes
 * whose commit carries the change id `id` (see change-id.h), as the id
 * index (see change-writer.c) lists them, each with a `util` pointing to a
 * newly allocated copy of that commit's name. Stale entries are checked
 * against the refs and dropped; an abandoned change is not listed.
 * Changes that only came by fetch or update-ref are not there. With a
 * `cache` (or NULL), each bucket of the index is read once.
 */
void changes_with_id(struct repository *r, struct content_index_cache *cache,
		     const char *id, struct string_list *out);

/*
 * Whether a rebase is in progress in the current worktree (a "git am" is
 * not one). Commands record nothing then: the rebase records the rewrites
 * of all its commits when it finishes (including what was amended when it
 * stopped), in one transaction, so "rebase --abort" has nothing to undo.
 */
int changes_deferred_by_rebase(struct repository *r);

/*
 * While a rebase, "git am" or a sequence of cherry-picks or reverts is in
 * progress, the first value of each change moved is saved in this file of
 * its state directory (rebase-merge, rebase-apply or sequencer), one
 * "<object name> <refname>" line per change, the null object name for a
 * change that did not exist.
 */
#define CHANGES_SAVED_FILE "metas-before"

/*
 * Restore the changes moved while the command whose state directory is
 * `state_dir` was in progress to where they were before it, in one
 * transaction, deleting those it created. For "--abort"; `reason` is the
 * reflog message.
 */
int restore_saved_changes(struct repository *r, const char *state_dir,
			  const char *reason, struct strbuf *err);

/* restore_saved_changes() for "rebase --abort". */
int restore_changes_before_rebase(struct repository *r, const char *state_dir,
				  struct strbuf *err);

/*
 * To be called by commands with "create" semantics (e.g. "commit"): create a
 * new change pointing at `commit`, named after its subject. `reason` is the
 * reflog message. The cost does not depend on the number of changes.
 */
int create_change(struct repository *r, const struct object_id *commit,
		  const char *reason, struct strbuf *err);

/* One commit rewritten by a command, e.g. one pick of a rebase. */
struct commit_rewrite {
	struct object_id old;
	struct object_id new;
};

enum rewrite_type {
	/* `new` replaces `old` (commit --amend, rebase). */
	REWRITE_MODIFY,
	/* `new` is a copy of `old`, which stays (cherry-pick). */
	REWRITE_COPY,
};

/*
 * Record the rewrites in `rewrites` (`nr` pairs, in the order they were
 * made) in a single ref transaction. Pairs whose old and new commits are
 * the same (fast-forwarded picks) are ignored. All old commits rewritten to
 * the same new commit (a squash) become parents of one metacommit.
 *
 * For REWRITE_MODIFY, every change whose head has an old commit as its
 * content is advanced to a metacommit that replaces its head; if an old
 * commit has no change, a change is created for it (named after it) and
 * advanced at once. For REWRITE_COPY a new change is created for the new
 * commit, with the changes of the old ones as its origin. A later pair may
 * rewrite the new commit of an earlier one: the change then continues.
 *
 * Changes are found through an index by content commit that this library
 * maintains, so the cost depends on the number of rewrites, not of changes;
 * changes created by other means (update-ref, fetch) are not found.
 * `reason` is used in the message of each metacommit ("<reason>: <subject>")
 * and of each reflog entry.
 */
int record_rewrites(struct repository *r, const struct commit_rewrite *rewrites,
		    size_t nr, enum rewrite_type type, const char *reason,
		    struct strbuf *err);

/*
 * Rewrites recorded in the caller's own ref transaction, so that the refs
 * the command moves (HEAD after "commit --amend", say) and the changes
 * move together or not at all:
 *
 *   rec = prepare_rewrites(r, rewrites, nr, type, reason, err);
 *   queue_change_recording(rec, transaction, err);
 *   ... ref_transaction_commit(transaction, err) ...
 *   finish_change_recording(rec, committed);
 *
 * prepare_rewrites() writes the metacommits of record_rewrites() and
 * decides which changes move (NULL with a message in `err` if it
 * cannot); queue_change_recording() queues those moves, each with the
 * value it must have, and saves them for the --abort of a command in
 * progress (0, or -1 with a message in `err`); finish_change_recording()
 * lets the content index learn them if the transaction was committed,
 * and frees `rec` (which may be NULL).
 */
struct change_recording;
struct ref_transaction;
struct change_recording *prepare_rewrites(struct repository *r,
					  const struct commit_rewrite *rewrites,
					  size_t nr, enum rewrite_type type,
					  const char *reason, struct strbuf *err);
int queue_change_recording(struct change_recording *rec,
			   struct ref_transaction *transaction,
			   struct strbuf *err);
void finish_change_recording(struct change_recording *rec, int committed);

/*
 * What recording rewrites would do, for a dry run that tells what a
 * command would do after them:
 *
 *   odb_hold_writes(r->objects);
 *   rec = start_change_preview(r);
 *   preview_rewrites(rec, rewrites, nr, type, reason, &moved, err);
 *   ... change_graph_show_moved(graph, &moved), load the graph ...
 *   finish_change_recording(rec, 0);
 *   odb_discard_writes(r->objects);
 *
 * preview_rewrites() adds rewrites as record_rewrites() would record
 * them, a later call going on from what the earlier ones did, but moves
 * no ref: it sets in `moved` (refname -> struct object_id, owned by
 * `rec`) the head that each change it would move would have. The
 * metacommits are written where the caller holds writes, to discard
 * them. Returns 0, or -1 with a message in `err`.
 */
struct change_recording *start_change_preview(struct repository *r);
int preview_rewrites(struct change_recording *rec,
		     const struct commit_rewrite *rewrites, size_t nr,
		     enum rewrite_type type, const char *reason,
		     struct strmap *moved, struct strbuf *err);

/*
 * Record, in a single ref transaction, that the commits of `copies` were
 * copied (REWRITE_COPY) and then that those of `rewrites` were rewritten
 * (REWRITE_MODIFY), as record_rewrites() would. A commit split in two is
 * both: one part continues its change, the other is a new change with it as
 * origin.
 */
int record_copies_and_rewrites(struct repository *r,
			       const struct commit_rewrite *copies,
			       size_t copies_nr,
			       const struct commit_rewrite *rewrites,
			       size_t rewrites_nr, const char *reason,
			       struct strbuf *err);

/*
 * For a rebase: record_rewrites() of type REWRITE_MODIFY and, in the same
 * transaction, that the commits of `dropped` were dropped. The changes
 * whose head has a dropped commit as content advance to a metacommit that
 * abandons it, as abandon_change() does, so that "git evolve" does not
 * bring it back; a dropped commit that no change holds is left alone. The
 * metacommits' message is "<reason> (drop): <subject>".
 */
int record_rewrites_and_drops(struct repository *r,
			      const struct commit_rewrite *rewrites, size_t nr,
			      const struct oid_array *dropped,
			      const char *reason, struct strbuf *err);

/*
 * Bring back the hidden change `name` (refs/hiddenmetas/<name>, given in
 * any of the forms "<name>", "metas/<name>" or "hiddenmetas/<name>"):
 * move it to refs/metas/<name>, which must not exist, in one transaction.
 * If there is no such hidden change but refs/metas/<name> is abandoned,
 * advance it to a metacommit that holds the abandoned commit again and
 * replaces the abandoning one. Stores the refname of the restored change
 * in `restored`. Returns 0, or -1 with a message in `err`.
 */
int restore_change(struct repository *r, const char *name,
		   struct strbuf *restored, struct strbuf *err);

/*
 * Whether a rebase, am, cherry-pick or revert is in progress, whose --abort
 * restores the changes as they were when it started.
 */
int change_command_in_progress(struct repository *r);

/*
 * "git gc": delete, in one transaction, the hidden changes hidden before
 * `expire`, so that the versions only they keep can be pruned (nothing
 * while change_command_in_progress(): its --abort would restore them). When a
 * change was hidden is the date of the newest entry of its reflog or,
 * without one, the committer date of its metacommit; a change neither
 * dates is kept. Returns 0, or -1 with a message in `err`.
 */
int expire_hidden_changes(struct repository *r, timestamp_t expire,
			  struct strbuf *err);

/*
 * "git change copy": the design's third way out of divergence. The change
 * `name` (under refs/metas/) gets a metacommit with the same commit whose
 * only other parent is its previous head, as an origin: it becomes a copy
 * of its history rather than a replacement of what that history replaced,
 * so it no longer makes those commits obsolete, and both sides of the
 * divergence live on as separate changes. `copied` receives the refname.
 * Returns 0, or -1 with a message in `err`.
 */
int copy_change(struct repository *r, const char *name,
		struct strbuf *copied, struct strbuf *err);

/*
 * Abandon `commit`: every change whose head has it as content is advanced
 * to a metacommit that marks it abandoned ("a"), so that "git evolve"
 * drops it from history. The refnames of those changes are appended to
 * `changes`. Returns 0, 1 if no change holds `commit` (for the caller to
 * say so, naming it as the user did), or -1 with a message in `err`.
 */
int abandon_change(struct repository *r, const struct object_id *commit,
		   struct string_list *changes, struct strbuf *err);

struct change_table;

/*
 * Insert into the sorted `refnames` the changes of `table` under
 * refs/metas/ whose head is `commit` or has it as content.
 */
void local_changes_of(struct change_table *table, const struct object_id *commit,
		      struct string_list *refnames);

/*
 * Rename the change `old` to `new` (names in any form accepted by
 * strbuf_add_change_refname()), keeping its reflog. Without `old`, the
 * change whose commit is HEAD is renamed; if there is none, one is created
 * for HEAD. `renamed` receives the old refname, or is left empty for a
 * created change. Returns 0, or -1 with a message in `err`.
 */
int rename_change(struct repository *r, const char *old, const char *new,
		  struct strbuf *renamed, struct strbuf *err);

/* A ref moved along with recorded rewrites, e.g. a branch that follows. */
struct ref_move {
	const char *refname;
	/* The value the ref must have. */
	struct object_id old;
	/* Its new value; the null object name deletes the ref. */
	struct object_id new;
};

/*
 * For commands that know the changes they rewrite, such as "git evolve":
 * record_rewrites() of type REWRITE_MODIFY, where `known_changes` (each
 * `string` a refname, each `util` its `struct change_head`) are found by
 * their content without the index, and where `moves` (other refs, or
 * changes to delete) are applied in the same ref transaction. A move of
 * a known change (to the `head` of its change_head, a newer version
 * fetched from a remote) gives where the change is: if it is rewritten,
 * it moves from there, and its history continues from that head.
 */
int record_rewrites_and_move_refs(struct repository *r,
				  const struct string_list *known_changes,
				  const struct commit_rewrite *rewrites,
				  size_t nr, const struct ref_move *moves,
				  size_t moves_nr, const char *reason,
				  struct strbuf *err);

/*
 * Delete the changes in `refnames` (full refnames, each `util` pointing to
 * the object name the ref is expected to have) in one transaction.
 */
int delete_changes(struct repository *r, const struct string_list *refnames,
		   const char *reason, struct strbuf *err);

/*
 * Move the changes of `moves` (local or hidden changes, each to a value
 * already written; the null object name deletes one) in one transaction
 * that verifies their old values. Returns 0, or -1 with a message in
 * `err`.
 */
int move_changes(struct repository *r, const struct ref_move *moves,
		 size_t nr, const char *reason, struct strbuf *err);

/*
 * "git merge --squash" leaves the commit to "git commit". Save the squashed
 * `commits` (newest first, as "git log" walks them) for it, next to
 * SQUASH_MSG, and remove them where SQUASH_MSG is removed.
 */
void save_squashed_commits(struct repository *r, const struct oid_array *commits);
void remove_squashed_commits(struct repository *r);

/*
 * Record `commit`, which concludes a "git merge --squash", as a copy of
 * every squashed commit: a new change with an origin edge to each. Returns
 * 1 and records nothing if no squash is pending, otherwise as
 * record_rewrites().
 */
int record_squash(struct repository *r, const struct object_id *commit,
		  const char *reason, struct strbuf *err);

#endif /* CHANGE_WRITER_H */
