#ifndef EVOLVE_H
#define EVOLVE_H

#include "hash.h"
#include "string-list.h"

struct commit;
struct commit_rewrite;
struct commit_list;
struct oid_array;
struct repository;
struct strbuf;

/*
 * "git evolve": rebase every change whose parent is obsolete (an "orphan")
 * onto the newest version of that parent, in dependency order, until no
 * change has an obsolete parent. See Documentation/technical/evolve.adoc.
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
 * The commits a stopped evolve has made so far, which gc keeps: the first
 * object name of each line of this file in $GIT_DIR.
 */
#define EVOLVE_SAVED_FILE "evolve/done"

/* Whether a stopped evolve waits for --continue, --skip or --abort. */
int evolve_in_progress(struct repository *r);

/*
 * For "git status": whether an evolve is stopped and, as far as its
 * state says, where: `current` is set to the change whose rebase
 * conflicted ("metas/foo", or the abbreviated object name of a commit
 * without a change) and `onto` to the abbreviated object name of the
 * commit it goes onto, both newly allocated, or to NULL if that file of
 * the state is missing or damaged. Never dies.
 */
int evolve_describe_stop(struct repository *r, char **current, char **onto);

/*
 * Whether "git evolve --continue" takes `commit` as the resolution of the
 * stopped evolve, as "git rebase --continue" takes what was committed at
 * a stop: its only parent is the commit evolve stopped onto. "git commit"
 * starts no change for it, since --continue records it as the new
 * version of the change that conflicted.
 */
int evolve_takes_commit(struct repository *r, const struct object_id *commit);

/*
 * If an evolve stopped on a conflict while moving a commit onto `onto`,
 * set `current` to that commit, which a commit made on `onto` resolves
 * (see evolve_takes_commit()), and return 1; otherwise return 0.
 */
int evolve_stopped_onto(struct repository *r, const struct object_id *onto,
			struct object_id *current);

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
 * For "git next": append to `out` the changes whose commit is built on
 * `commit`, or on an older version of it (`string` the refname, `util` the
 * struct commit). Each commit is listed once, under its first name.
 */
int evolve_children(struct repository *r, struct commit *commit,
		    struct string_list *out);

/*
 * For "git prev": the newest version of the parent of `commit`, or NULL
 * with a message in `err` if it has none or is divergent.
 */
struct commit *evolve_newest_parent(struct repository *r, struct commit *commit,
				    struct strbuf *err);

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
 * (the commit that concludes it has evolve_merged_parents()). Returns 0,
 * 1 if the versions conflict, or -1 otherwise, with a message in `err`.
 */
int evolve_merge_amend(struct repository *r, struct commit *other,
		       const char *other_name, struct strbuf *err);

/*
 * Append to `parents` the parents of the commit that replaces both
 * versions `a` and `b` of a change: theirs, without duplicates, never
 * `a` or `b` themselves.
 */
void evolve_merged_parents(struct commit *a, struct commit *b,
			   struct commit_list **parents);

/*
 * How many local changes are built, through any number of commits, on one
 * of `replaced`, commits a command has just rewritten or dropped: the
 * orphans it left. They are looked for above `replaced` on HEAD and the
 * local branches, among the commits the content index names as the
 * commits of changes. The walk goes down from the branches no further
 * than the generation of `replaced` or, without a commit-graph, than a
 * day before their commit date, so that this costs what the stacks and
 * the recent history hold, not what the repository holds (a clock wrong
 * by more than a day can hide a stack from this count, which is only a
 * hint). It uses no object flags: safe during a revision walk.
 */
int evolve_count_orphans_above(struct repository *r,
			       const struct oid_array *replaced);

/*
 * After a command rewrote or dropped `replaced`: if that left orphans,
 * remember the commits for evolve_count_orphans() and say how many there
 * are and to run "git evolve" (advice.evolveOrphans).
 */
void evolve_report_orphans(struct repository *r,
			   const struct oid_array *replaced);

/*
 * How many orphans the rewrites that evolve_report_orphans() saw still
 * leave (for "git status"); 0 when changes do not record. Costs one
 * stat() when there were none since the last complete evolve.
 */
int evolve_count_orphans(struct repository *r);

/*
 * After a command replaced commits, rewrites[i].old by rewrites[i].new
 * (a null `new` for a commit it dropped): what evolve_report_orphans()
 * says of the orphans left on them, and, for each rewrite of a version
 * that a change had already moved on from (an earlier version amended or
 * rebased again), that the change of `new` and that one diverge, with
 * the commands that resolve it (advice.evolveDivergence), remembered for
 * evolve_count_divergent(). Costs the orphans' walk, a look at the
 * content index per rewrite and the walks of the diverging changes'
 * histories.
 */
void evolve_report_rewrites(struct repository *r,
			    const struct commit_rewrite *rewrites, size_t nr);

/*
 * How many local changes the divergences that evolve_report_rewrites()
 * and "git fetch" saw still leave divergent, with those amended since a
 * fetch saw a newer commit of them by its id (for "git status"); 0 when
 * changes do not record. Costs two failed opens when there were none
 * since the last complete evolve, else the walks of the histories of
 * the changes concerned (of the newest 64 lines of each file).
 */
int evolve_count_divergent(struct repository *r);

/*
 * After a fetch moved refs (`moves`, from `old` to `new`), say what the
 * user's changes need, as hints. Of the changes of a remote (refs under
 * refs/remotes/<remote>/metas/): a change of the same name that is
 * behind the version fetched (evolve fast-forwards it), one that
 * diverged from it (a merge resolves it), and how many changes are
 * built on versions the fetch replaced (remembered for "git status", as
 * after an amend). Of the commits fetched on other refs: those that
 * carry the change id of a local change (see changes_with_id()) but are
 * neither a version it replaced nor built on it, nor a version of a
 * change fetched (divergence, remembered for "git status"), or newer
 * versions of it, when the ref had the change's commit before (evolve
 * takes them). With `quiet`, remembers without a word. Does nothing when
 * changes do not record. Costs the walks of the histories of the changes
 * fetched, and, once a change has had an id, the walk of the commits
 * fetched.
 */
struct ref_move;
void evolve_report_fetched(struct repository *r, const struct ref_move *moves,
			   size_t nr, int quiet);

/* The state of a change, for "git change list". */
#define CHANGE_STATE_CURRENT   (1 << 0) /* its commit is HEAD */
/* Built on an obsolete or abandoned commit, maybe through other changes. */
#define CHANGE_STATE_ORPHAN    (1 << 1)
/* It and another version replace one commit (one fetched by id, too). */
#define CHANGE_STATE_DIVERGENT (1 << 2)
#define CHANGE_STATE_ABANDONED (1 << 3) /* its head is an abandoned metacommit */
#define CHANGE_STATE_OBSOLETE  (1 << 4) /* another change replaces its commit */
/*
 * A remote has a newer version of it, or a fetched commit with its id
 * is one, which "git evolve" fast-forwards to.
 */
#define CHANGE_STATE_BEHIND    (1 << 5)

/*
 * The states of the changes under refs/metas/: every `string` of `changes`
 * (full refnames) gets a `util` of (uintptr_t) CHANGE_STATE_* flags.
 */
void evolve_change_states(struct repository *r, struct string_list *changes);

/* One version of a change, for "git log --obslog". */
struct obslog_entry {
	/* The commit of that version. */
	struct object_id commit;
	/* The metacommit that recorded it, or the null oid for a first version. */
	struct object_id meta;
	/* What made it (the metacommit's message), or NULL. */
	char *operation;
	/*
	 * The commit of the (first) version it replaced, or the null oid for
	 * a first version.
	 */
	struct object_id previous;
	timestamp_t date;
	/*
	 * The versions it replaced, as indices into the array of entries:
	 * the edges of the graph that "git log --obslog --graph" draws.
	 * Each is greater than this entry's own index.
	 */
	size_t *replaces;
	size_t replaces_nr;
};

/*
 * The versions of the change `name` (or, if NULL, of the change whose
 * commit is HEAD): its metacommits and the commits they replace,
 * following "replaces" edges, so that merged and divergent histories are
 * included. They come newest first, but never before a version that
 * replaces them (a topological order, as "git log --graph" needs). Returns 0 and fills `entries` (free with
 * obslog_entries_release()), or -1 with a message in `err`.
 */
int evolve_obslog(struct repository *r, const char *name,
		  struct obslog_entry **entries, size_t *nr, struct strbuf *err);
void obslog_entries_release(struct obslog_entry *entries, size_t nr);

/*
 * For "git log --obslog -p": the tree of the `older` version of a commit
 * rebased, in memory, onto the parent of the `newer` one, so that the diff
 * from it to `newer` shows what was edited rather than what the parent
 * brought. Returns 0 and sets `tree`, or -1 if the rebase conflicts (then
 * diff against `older` itself). The merged trees are written to the
 * object database.
 */
int obslog_rebased_tree(struct repository *r, struct commit *older,
			struct commit *newer, struct object_id *tree);

/* What a version changed from the version it replaced. */
enum obslog_change {
	OBSLOG_CHANGED_PARENT = (1 << 0),
	OBSLOG_CHANGED_CONTENT = (1 << 1),
	OBSLOG_CHANGED_MESSAGE = (1 << 2),
	OBSLOG_CHANGED_AUTHOR = (1 << 3),
};

/*
 * What `entry` changed from the (first) version it replaced, as
 * OBSLOG_CHANGED_* flags (0 for a first version, or one that cannot be
 * read). The content counts as changed only if it differs after the older
 * version is rebased onto the newer one's parent (obslog_rebased_tree()),
 * so a rebase alone changes only the parent.
 */
unsigned obslog_changes(struct repository *r, const struct obslog_entry *entry);

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
 * or -1 with a message in `err` (the change may be abandoned and HEAD not
 * moved: then `head` is ABANDON_HEAD_MOVED and the message says so).
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

/*
 * For "git log --decorate": whether commits are obsolete, i.e. replaced,
 * in the history of a change under refs/metas/ or of a remote's, by a
 * newer version, and are not themselves the commit of a change (unless
 * that change is behind its remote version). Knowing that for sure means
 * walking the history of every change; the finder does that once, and
 * only when it is asked about a commit that may be obsolete: one the
 * content index lists for a change whose commit it no longer is, or the
 * commit of a change that a remote has at another version. Others cost a
 * look at a cached index bucket, and a ref read per remote for the
 * commits of changes. (So obsolete versions of changes that only came by
 * fetch or update-ref, and no local change ever held, are not found.)
 */
struct obsolete_finder;
struct obsolete_finder *obsolete_finder_new(struct repository *r);
void obsolete_finder_free(struct obsolete_finder *finder);

/*
 * Whether `commit` is obsolete: then `change` is set to the refname of
 * (one of) the changes holding its newest version, valid until the finder
 * is freed, and `behind` to how many versions came after it (along one
 * path of the change's history).
 */
int obsolete_finder_lookup(struct obsolete_finder *finder,
			   const struct object_id *commit,
			   const char **change, unsigned *behind);

/*
 * The design's merge base of two versions of the same change: following
 * the "replaces" and "origin" edges of every change (local, remote and
 * hidden), the earlier version of the commit nearest to both `a` and `b`
 * (one of them, if it is an earlier version of the other). Such a base is
 * much closer to both than their common ancestor in the commit graph.
 * Returns NULL if `a` and `b` are not versions of one change.
 */
struct commit *evolve_meta_merge_base(struct repository *r, struct commit *a,
				      struct commit *b);

#endif /* EVOLVE_H */
