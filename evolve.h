#ifndef EVOLVE_H
#define EVOLVE_H

#include "hash.h"
#include "string-list.h"

struct commit;
struct repository;
struct strbuf;

/*
 * The evolve engine. "git evolve": rebase every change whose parent is
 * obsolete (an "orphan") onto the newest version of that parent, in
 * dependency order, until no change has an obsolete parent. See
 * Documentation/technical/evolve.adoc. And what needs its walk or moves
 * HEAD: "git merge --amend", "git change" prune, forget and abandon, the
 * move of next/prev.
 */

enum evolve_step_type {
	/*
	 * The change is an earlier version of the change of the same name
	 * fetched from a remote, `onto` ("origin/metas/x"): it moves there.
	 */
	EVOLVE_STEP_CATCH_UP,
	/*
	 * A commit fetched with the change id of the change's commit, `onto`
	 * (abbreviated), was made from it: it becomes the change's version.
	 */
	EVOLVE_STEP_TAKE_FETCHED,
	/* The change was rebased onto `onto`. */
	EVOLVE_STEP_REBASE,
	/* The change became empty when rebased onto `onto`: it is deleted. */
	EVOLVE_STEP_DELETE_EMPTY,
	/* The change is abandoned: its commit is dropped from history. */
	EVOLVE_STEP_DROP_ABANDONED,
	/* The change's commit is in the upstream `onto`: it is deleted. */
	EVOLVE_STEP_DELETE_LANDED,
	/*
	 * A commit of the upstream `onto`, `merge`, carries the change id
	 * of the change's commit: the change landed there, edited, and is
	 * deleted.
	 */
	EVOLVE_STEP_DELETE_LANDED_AS,
	/*
	 * The change and the change `onto` replaced one commit (divergence):
	 * --auto-merge merged their versions into one.
	 */
	EVOLVE_STEP_MERGE_DIVERGENT,
	/*
	 * The change and the change `onto` replaced one commit (divergence),
	 * and the change `merge` merged their versions: that merge, squashed
	 * into them, replaces all three.
	 */
	EVOLVE_STEP_SQUASH_MERGE,
	/*
	 * The change and the change `onto` replaced one commit (divergence)
	 * but the change adds nothing to `onto`'s version: it is the same
	 * (both rebased it alike) or an earlier version of it. The change
	 * joins that version.
	 */
	EVOLVE_STEP_JOIN,
};

struct evolve_step {
	enum evolve_step_type type;
	/* Done before an earlier stop, and reported then. */
	unsigned resumed:1;
	/*
	 * The refnames of the change (several if it has aliases); empty for
	 * a commit without a change that evolve carried along.
	 */
	struct string_list refnames;
	/* The commit the step is about (before it was rebased). */
	struct object_id commit;
	/* What it was rebased onto: a change's refname or an object name. */
	char *onto;
	/*
	 * EVOLVE_STEP_SQUASH_MERGE: the change of the merge.
	 * EVOLVE_STEP_DELETE_LANDED_AS: the commit that carries its id.
	 */
	char *merge;
};

enum evolve_action {
	EVOLVE_START,
	/* Resume after the conflicts of a stopped evolve are resolved. */
	EVOLVE_CONTINUE,
	/* Resume, leaving the change that conflicted where it is. */
	EVOLVE_SKIP,
};

struct evolve_options {
	enum evolve_action action;
	/*
	 * Compute and report the steps and the branches to move, but write
	 * nothing: the rebases are done in memory all the same (so that the
	 * changes that would become empty, and a conflict that would stop
	 * evolve, are reported as the real run reports them), and their
	 * objects dropped. Divergences are not resolved (see
	 * `follow_up_merges` and `auto_merge`), only reported.
	 */
	int dry_run;
	/* Show a progress meter while rebasing. */
	int show_progress;
	/*
	 * Merge the versions of a divergent commit into one, as "git merge
	 * --amend" does, instead of stopping (unless they conflict).
	 */
	int auto_merge;
	/*
	 * Resolve a divergence with a change whose commit merges the
	 * divergent versions (and nothing else), if there is one: that merge,
	 * squashed into them, replaces them. On by default.
	 */
	int follow_up_merges;
	/*
	 * Upstreams (`string` the name as given, `util` its struct commit):
	 * changes based on one move onto it, those in one are deleted. A
	 * stopped evolve remembers them.
	 */
	struct string_list upstreams;
};

#define EVOLVE_OPTIONS_INIT { \
	.follow_up_merges = 1, \
	.upstreams = STRING_LIST_INIT_DUP, \
}

/* Why evolve could not go on, beyond what the error says: for the hints. */
enum evolve_stop {
	EVOLVE_STOP_NONE,
	/*
	 * A commit is replaced by two changes: `stop_names` are their
	 * names ("metas/foo").
	 */
	EVOLVE_STOP_DIVERGENCE,
	/*
	 * A change and a version of it fetched from a remote both replace
	 * a commit: `stop_names` are the change ("metas/foo") and the remote
	 * version ("origin/metas/foo").
	 */
	EVOLVE_STOP_REMOTE_DIVERGENCE,
	/*
	 * A merge commit conflicted when rebased, which evolve cannot stop
	 * on: `stop_names[0]` names it (its change, or its abbreviated
	 * object name).
	 */
	EVOLVE_STOP_MERGE_COMMIT,
};

struct evolve_result {
	struct evolve_step *steps;
	size_t steps_nr, steps_alloc;
	/*
	 * Branches (full refnames) moved to follow their commit, each `util`
	 * where it went, named as an evolve_step's `onto` is.
	 */
	struct string_list moved_refs;
	/*
	 * Branches that follow a rewritten commit but are checked out in
	 * another worktree, which evolve leaves alone (`util`: the path of
	 * that worktree, a string the list owns).
	 */
	struct string_list skipped_refs;
	enum evolve_stop stop;
	char *stop_names[2];
};

#define EVOLVE_RESULT_INIT { \
	.moved_refs = STRING_LIST_INIT_DUP, \
	.skipped_refs = STRING_LIST_INIT_DUP, \
}

void evolve_result_release(struct evolve_result *result);

/*
 * Evolve all changes under refs/metas/. Every rebase is done in memory;
 * the changes, and the branches that point at a rewritten commit, are then
 * updated in one ref transaction, and HEAD with the working tree and index,
 * if it points at a rewritten commit (local modifications are stashed and
 * reapplied, as "rebase --autostash" does).
 *
 * On a conflict, no ref but HEAD moves: the commits rebased so far are
 * saved in $GIT_DIR/evolve/, HEAD is detached at the commit that the
 * conflicting change goes onto, and the conflicts are left in the working
 * tree and index; 1 is returned and the conflict described in `err`.
 * Resume with EVOLVE_CONTINUE or EVOLVE_SKIP, or evolve_abort().
 *
 * Nothing is written if evolve cannot go on for another reason (a divergent
 * or cyclic change, a merge commit to rebase): -1 is returned with a
 * message in `err` (and `result->stop` says why, for a hint); 0 on success.
 * `result` lists what was (or, with `dry_run`, would be) done. With
 * `dry_run`, a conflict returns -1.
 */
int evolve_changes(struct repository *r, const struct evolve_options *opts,
		   struct evolve_result *result, struct strbuf *err);

/*
 * Abandon a stopped evolve: HEAD, the working tree and the index go back
 * to where they were before it started (local modifications included),
 * and so do the changes that resolving divergences moved before it
 * stopped; no other ref has moved. Returns 0, or -1 with a message in
 * `err`.
 */
int evolve_abort(struct repository *r, struct strbuf *err);

/*
 * For "git evolve <upstream>..." and "git change prune <upstream>...":
 * append each of the `nr` `names` to `upstreams`, with the commit it
 * names as its util. Returns 0, or -1 with a message in `err` if a name
 * is no commit or is a metacommit (a change named by its full refname,
 * or "<change>^{metacommit}"), which no change can land on.
 */
int evolve_resolve_upstreams(struct repository *r, const char **names, int nr,
			     struct string_list *upstreams, struct strbuf *err);

/*
 * Detach HEAD at `to`, updating the working tree and index as "git
 * checkout --detach" does (local modifications are kept if they do not
 * conflict). `action` is the reflog action.
 */
int evolve_move_head(struct repository *r, struct commit *to,
		     const char *action, struct strbuf *err);

/*
 * "git merge --amend <other>", the "modify" merge of the design that
 * resolves divergence: merge the versions HEAD and `other` of a change
 * into one commit that replaces both. Its parents are theirs (so it is no
 * merge commit when they share their parent), its message HEAD's; both
 * changes then point at one metacommit, and HEAD (with its branch) moves
 * to it. The work tree must be clean. On a conflict, the conflicts are
 * left in the work tree and the index, with markers naming the other
 * version `other_name`, for the caller to record the merge in progress
 * (the commit that concludes it has evolve_merged_parents(), in
 * evolve-merge.h). Returns 0,
 * 1 if the versions conflict, or -1 otherwise, with a message in `err`.
 */
int evolve_merge_amend(struct repository *r, struct commit *other,
		       const char *other_name, struct strbuf *err);

/*
 * "git change forget": delete the changes `names` (refnames, each `util`
 * its expected object name) in one transaction. Unless `force`, refuse to
 * drop the last name of a change that other changes build on (they would
 * lose the history that evolve follows). Returns 0, or -1 with a message
 * in `err`.
 */
int forget_changes(struct repository *r, struct string_list *names,
		   int force, struct strbuf *err);

/* What abandon_and_leave() did with HEAD. */
enum abandon_head {
	/* HEAD is not at the abandoned commit. */
	ABANDON_HEAD_ELSEWHERE,
	/* HEAD (and its branch) moved to the parent of the commit. */
	ABANDON_HEAD_MOVED,
	/* HEAD stays: the commit has no parent. */
	ABANDON_HEAD_ROOT,
	/* HEAD stays: a rebase, merge, evolve... is in progress. */
	ABANDON_HEAD_BUSY,
};

/*
 * "git change abandon": abandon_change() of `commit`, appending the
 * changes abandoned to `changes` as it does; then, if HEAD is at
 * `commit`, move HEAD, and the branch it is on, to its first parent at
 * once, as "hg prune" does, keeping local modifications that do not
 * conflict, as "git checkout" does. `head` says what happened to HEAD
 * (it does not move while another command is in progress). Returns 0,
 * 1 if no change holds `commit`, as abandon_change(), or -1 with a
 * message in `err` (the change may be abandoned and HEAD not moved: then
 * `head` is ABANDON_HEAD_MOVED and the message says so).
 */
int abandon_and_leave(struct repository *r, const struct object_id *commit,
		      struct string_list *changes, enum abandon_head *head,
		      struct strbuf *err);

/* Why "git change prune" hid a change. */
struct pruned_change {
	enum {
		/* Another change replaces its commit. */
		PRUNED_OBSOLETE,
		/* It is abandoned, and no change is built on it. */
		PRUNED_ABANDONED,
		/* Its commit is in `upstream`. */
		PRUNED_LANDED,
	} reason;
	/* The name of the upstream, as given to prune_changes(). */
	const char *upstream;
	/* The head of the change, which refs/hiddenmetas/ keeps. */
	struct object_id head;
};

/*
 * "git change prune": hide in refs/hiddenmetas/, in one transaction, the
 * changes that are obsolete, those that are abandoned with no change built
 * on them, and those whose commit is in one of `upstreams` (`string` a
 * name, `util` its struct commit). They are appended to `pruned`
 * (refnames, `util` a newly allocated struct pruned_change: clear it with
 * `string_list_clear(pruned, 1)`). With `dry_run`, nothing is written.
 * Returns 0, or -1 with a message in `err`.
 */
int prune_changes(struct repository *r, const struct string_list *upstreams,
		  int dry_run, struct string_list *pruned, struct strbuf *err);

#endif /* EVOLVE_H */
