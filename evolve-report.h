#ifndef EVOLVE_REPORT_H
#define EVOLVE_REPORT_H

struct commit_rewrite;
struct oid_array;
struct repository;

/*
 * What commands say about changes after they ran: the orphans a rewrite
 * left, the divergence an amend or a fetch made, the newer versions a
 * fetch brought; and the counts "git status" shows. What they find is
 * noted (change-notes.h) for status and evolve, and forgotten once an
 * evolve leaves nothing to do.
 */

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
 * takes them). The content index learns the remote changes fetched
 * (index_fetched_changes()). With `quiet`, remembers without a word.
 * Does nothing when
 * changes do not record. Costs the walks of the histories of the changes
 * fetched, and, once a change has had an id, the walk of the commits
 * fetched.
 */
struct ref_move;
void evolve_report_fetched(struct repository *r, const struct ref_move *moves,
			   size_t nr, int quiet);

/*
 * After a complete evolve: forget the orphaned commits noted
 * (change-notes.h) if no change is built on them any more.
 */
void forget_orphaned(struct repository *r);

/*
 * After a complete evolve: forget the divergences noted if none is
 * left, and the versions noted newer by change id, which evolve took.
 */
void forget_divergent(struct repository *r);

#endif /* EVOLVE_REPORT_H */
