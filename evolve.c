/*
 * The evolve engine: "git evolve" (visit the changes in dependency order,
 * rebase them in memory, move what was rewritten in one transaction,
 * stop on a conflict and resume), resolving divergence (merge --amend,
 * follow-up merges), and the "git change" operations that need the
 * engine's walk (prune, forget, abandon with HEAD moved off) and the
 * move of HEAD for next/prev. It reads the changes through the change
 * graph (change-graph.h), keeps its stop in evolve-state.c, merges
 * versions with evolve-merge.c and records through the change writer
 * (change-writer.h).
 */
/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "evolve.h"
#include "cache-tree.h"
#include "change-graph.h"
#include "change-id.h"
#include "change-table.h"
#include "change-writer.h"
#include "commit-reach.h"
#include "commit.h"
#include "diff.h"
#include "dir.h"
#include "evolve-merge.h"
#include "evolve-report.h"
#include "evolve-state.h"
#include "gettext.h"
#include "hex.h"
#include "lockfile.h"
#include "merge-ort.h"
#include "object-name.h"
#include "odb.h"
#include "oidmap.h"
#include "oidset.h"
#include "patch-ids.h"
#include "path.h"
#include "progress.h"
#include "read-cache-ll.h"
#include "refs.h"
#include "replay.h"
#include "repository.h"
#include "reset.h"
#include "revision.h"
#include "sequencer.h"
#include "strbuf.h"
#include "strmap.h"
#include "tree.h"
#include "worktree.h"
#include "wt-status.h"

/*
 * What a dry run would have recorded: the divergences that the run would
 * end before evolving are ended as well, in memory only (see
 * preview_rewrites()), and the changes are loaded as they would be then,
 * so that it says what the run would do after them.
 */
struct dry_run {
	struct change_recording *rec;
	/* refname -> struct object_id: where the changes would be. */
	struct strmap moved;
};

struct evolver {
	struct repository *repo;
	const struct evolve_options *opts;
	/*
	 * Every change and the commits they make obsolete; evolve adds the
	 * commits it carries along without a change
	 * (change_graph_carried_node()).
	 */
	struct change_graph graph;
	/* For --dry-run: what it would have recorded. */
	struct dry_run *dry_run;
	struct merge_options merge_opt;
	struct merge_result merge_result;
	int merging;
	struct commit_rewrite *rewrites;
	size_t rewrites_nr, rewrites_alloc;
	struct evolve_result *result;
	struct strbuf *err;

	/* HEAD before evolve began: its branch (or NULL) and commit. */
	char *head_branch;
	struct object_id head_oid;
	/* Resuming a stopped evolve: HEAD must leave where it stopped. */
	int resuming;
	/* Rewrites before this index were done before evolve stopped. */
	size_t new_rewrites;
	/*
	 * The pick that --continue concluded and what it went onto, reported
	 * with this run's steps (NULL if none).
	 */
	struct object_id continued;
	struct commit *continued_onto;
	/* How deep visit() recursed (to break cycles). */
	int visit_depth;
	/*
	 * Where the changes that resolving divergences moved were before,
	 * as CHANGES_SAVED_FILE lines, for --abort (or NULL).
	 */
	struct strbuf *saved_changes;
	/* Changes that became empty in this run. */
	struct change_node **emptied;
	size_t emptied_nr, emptied_alloc;
	/* The upstreams (util: struct commit *), from opts or the state. */
	struct string_list upstreams;
	/*
	 * What the upstreams hold (see upstream_containing()): for each
	 * upstream, in order, which of the commits in `asked_upstreams` it
	 * has in its history. Filled the first time it is needed.
	 */
	struct oidset *in_upstream;
	struct oidset asked_upstreams;
	/*
	 * The commits the upstreams have and the changes' commits have not,
	 * that carry the change id of one of those (see landed_as()), by
	 * id (util: struct landed_commit). Filled the first time it is
	 * needed.
	 */
	struct strmap ids_in_upstreams;
	unsigned ids_in_upstreams_ready:1;
	/* The pick that conflicted, if any. */
	struct change_node *conflict_item;
	struct commit *conflict_onto;
};

void evolve_result_release(struct evolve_result *result)
{
	for (size_t i = 0; i < result->steps_nr; i++) {
		string_list_clear(&result->steps[i].refnames, 0);
		free(result->steps[i].onto);
		free(result->steps[i].merge);
	}
	free(result->steps);
	string_list_clear(&result->moved_refs, 1);
	string_list_clear(&result->skipped_refs, 1);
	for (size_t i = 0; i < ARRAY_SIZE(result->stop_names); i++)
		FREE_AND_NULL(result->stop_names[i]);
}

/* Say why evolve could not go on, for the command's hint. */
static void set_stop(struct evolve_result *result, enum evolve_stop stop,
		     const char *name0, const char *name1)
{
	if (!result)
		return;
	result->stop = stop;
	free(result->stop_names[0]);
	free(result->stop_names[1]);
	result->stop_names[0] = xstrdup_or_null(name0);
	result->stop_names[1] = xstrdup_or_null(name1);
}

static struct commit *resolve(struct evolver *ev, struct commit *commit,
			      int *changed, struct change_node **item);

/*
 * How the steps name `onto`, what `onto_item` (NULL if none) became: by
 * its change, else as an upstream, else by its object name. A change that
 * became empty or was dropped left its place to what its parent became,
 * which names it.
 */
static char *describe_onto(struct evolver *ev, struct change_node *onto_item,
			   struct commit *onto)
{
	const char *name = NULL;

	while (onto_item && !onto_item->landed &&
	       (onto_item->emptied || onto_item->abandoned) &&
	       onto_item->result == onto && onto_item->commit->parents) {
		struct change_node *below;
		int changed = 0;

		if (!resolve(ev, onto_item->commit->parents->item, &changed,
			     &below))
			break;
		onto_item = below;
	}
	if (onto_item && onto_item->remote && onto_item->result == onto &&
	    onto_item->changed && !onto_item->emptied) {
		/* Rewritten, it is the local change continuing it. */
		const char *remote = remote_change_name(
			onto_item->refnames.items[0].string);

		if (remote)
			return xstrfmt("metas/%s", remote);
	}
	if (onto_item && onto_item->result == onto && !onto_item->carried &&
	    !onto_item->emptied && !onto_item->abandoned) {
		name = change_node_name(onto_item);
	} else {
		/* e.g. the parent of an abandoned change */
		onto_item = oidmap_get(&ev->graph.items, &onto->object.oid);
		name = onto_item && onto_item->result == onto &&
			!onto_item->carried ?
			change_node_name(onto_item) : NULL;
	}
	if (!name) {
		struct string_list_item *upstream;

		for_each_string_list_item(upstream, &ev->upstreams)
			if (upstream->util == onto)
				return xstrdup(upstream->string);
	}
	if (name)
		return xstrdup(name);
	return xstrdup(repo_find_unique_abbrev(ev->repo, &onto->object.oid,
					       DEFAULT_ABBREV));
}

static struct evolve_step *append_step(struct evolve_result *result,
				       enum evolve_step_type type, char *onto)
{
	struct evolve_step *step;

	ALLOC_GROW(result->steps, result->steps_nr + 1, result->steps_alloc);
	step = &result->steps[result->steps_nr++];
	memset(step, 0, sizeof(*step));
	step->type = type;
	string_list_init_dup(&step->refnames);
	step->onto = onto;
	return step;
}

/* Say first which changes catch up with a remote version. */
static void add_catch_up_steps(struct evolver *ev)
{
	struct string_list_item *entry;

	for_each_string_list_item(entry, &ev->graph.caught_up) {
		struct caught_up *caught_up = entry->util;
		struct change_head *old = change_table_get(&ev->graph.table,
							   entry->string);
		struct evolve_step *step = caught_up->remote_refname ?
			append_step(ev->result, EVOLVE_STEP_CATCH_UP,
				    xstrdup(caught_up->remote_refname +
					    strlen("refs/remotes/"))) :
			append_step(ev->result, EVOLVE_STEP_TAKE_FETCHED,
				    xstrdup(caught_up->fetched_name));

		oidcpy(&step->commit, &old->content);
		string_list_append(&step->refnames, entry->string);
	}
}

static struct evolve_step *add_step(struct evolver *ev,
				    enum evolve_step_type type,
				    struct change_node *item, char *onto)
{
	struct evolve_step *step = append_step(ev->result, type, onto);
	struct string_list_item *name;

	oidcpy(&step->commit, &item->commit->object.oid);
	for_each_string_list_item(name, &item->refnames)
		string_list_append(&step->refnames, name->string);
	return step;
}

static int visit(struct evolver *ev, struct change_node *item);
static int visit_deep(struct evolver *ev, struct change_node *item);

/* The ways out of it are the command's hint (EVOLVE_STOP_*DIVERGENCE). */
static void report_divergence(struct evolver *ev,
			      struct obsolete_commit *obsolete)
{
	const char *commit = repo_find_unique_abbrev(ev->repo,
						     &obsolete->entry.oid,
						     DEFAULT_ABBREV);
	/* The local version first: it is the one to check out. */
	int swap = obsolete->newest->remote && !obsolete->divergent->remote;
	const char *newest = change_node_name(swap ? obsolete->divergent :
					      obsolete->newest);
	const char *divergent = change_node_name(swap ? obsolete->newest :
						 obsolete->divergent);

	if (ev->opts->auto_merge)
		strbuf_addf(ev->err,
			    _("commit %s is replaced by both '%s' and '%s' "
			      "(divergence), and --auto-merge could not merge "
			      "them: they conflict"),
			    commit, newest, divergent);
	else
		strbuf_addf(ev->err,
			    _("commit %s is replaced by both '%s' and '%s' "
			      "(divergence)"),
			    commit, newest, divergent);
	set_stop(ev->result,
		 obsolete->newest->remote != obsolete->divergent->remote ?
		 EVOLVE_STOP_REMOTE_DIVERGENCE : EVOLVE_STOP_DIVERGENCE,
		 newest, divergent);
}

/*
 * Ask each upstream once which of the commits of the changes, and of
 * their parents (the bases of the stacks), it has in its history: one walk
 * of the upstream answers for all of them, where asking commit by commit
 * would walk it once per change.
 */
static void find_commits_in_upstreams(struct evolver *ev)
{
	struct commit **to = NULL;
	size_t nr = 0, alloc = 0;
	struct oidmap_iter iter;
	struct change_node *item;

	oidmap_iter_init(&ev->graph.items, &iter);
	while ((item = oidmap_iter_next(&iter))) {
		if (repo_parse_commit(ev->repo, item->commit))
			continue;
		ALLOC_GROW(to, nr + 1, alloc);
		to[nr++] = item->commit;
		for (struct commit_list *p = item->commit->parents; p; p = p->next)
			if (!repo_parse_commit(ev->repo, p->item)) {
				ALLOC_GROW(to, nr + 1, alloc);
				to[nr++] = p->item;
			}
	}
	for (size_t i = 0; i < nr; i++)
		oidset_insert(&ev->asked_upstreams, &to[i]->object.oid);

	CALLOC_ARRAY(ev->in_upstream, ev->upstreams.nr);
	for (size_t i = 0; i < ev->upstreams.nr; i++) {
		struct commit *tip = ev->upstreams.items[i].util;
		struct commit_list *found = nr ?
			get_reachable_subset(&tip, 1, to, nr, 0) : NULL;

		oidset_init(&ev->in_upstream[i], 0);
		for (struct commit_list *c = found; c; c = c->next)
			oidset_insert(&ev->in_upstream[i], &c->item->object.oid);
		commit_list_free(found);
	}
	free(to);
}

/* A commit of an upstream that carries the change id of a change. */
struct landed_commit {
	struct commit *commit;
	/* The upstream (in evolver.upstreams) that has it. */
	size_t upstream;
	/*
	 * Another commit there has the id too (an earlier version, or a
	 * copy whose tool kept the header): which one the change became
	 * is unknown, and it is not taken as landed.
	 */
	unsigned ambiguous:1;
};

/*
 * Walk `tip`, the upstream `nr`, down to the commits of the changes
 * (`revs` holds them, uninteresting), adding to `ids_in_upstreams`
 * the commits that carry an id of `wanted`: the cost is what the
 * upstream holds that the changes do not, not its whole history.
 */
static void find_ids_in_upstream(struct evolver *ev, struct rev_info *revs,
				 struct commit *tip, size_t nr,
				 struct strset *wanted)
{
	struct strbuf id = STRBUF_INIT;
	struct commit *commit;

	add_pending_object(revs, &tip->object, "");
	if (prepare_revision_walk(revs))
		return;
	while ((commit = get_revision(revs))) {
		struct landed_commit *landed;

		if (!commit_change_id(ev->repo, commit, &id) ||
		    !strset_contains(wanted, id.buf))
			continue;
		landed = strmap_get(&ev->ids_in_upstreams, id.buf);
		if (landed) {
			if (landed->commit != commit)
				landed->ambiguous = 1;
			continue;
		}
		CALLOC_ARRAY(landed, 1);
		landed->commit = commit;
		landed->upstream = nr;
		strmap_put(&ev->ids_in_upstreams, id.buf, landed);
	}
	strbuf_release(&id);
}

/*
 * Fill `ids_in_upstreams`: one walk of each upstream, and none unless a
 * change's commit carries a change id.
 */
static void find_ids_in_upstreams(struct evolver *ev)
{
	struct strset wanted = STRSET_INIT;
	struct strbuf id = STRBUF_INIT;
	struct commit **changes = NULL;
	size_t nr = 0, alloc = 0;
	struct oidmap_iter iter;
	struct change_node *item;

	ev->ids_in_upstreams_ready = 1;
	if (!ev->in_upstream)
		find_commits_in_upstreams(ev);
	oidmap_iter_init(&ev->graph.items, &iter);
	while ((item = oidmap_iter_next(&iter))) {
		if (item->remote || !item->refnames.nr ||
		    repo_parse_commit(ev->repo, item->commit) ||
		    !commit_change_id(ev->repo, item->commit, &id))
			continue;
		strset_add(&wanted, id.buf);
		ALLOC_GROW(changes, nr + 1, alloc);
		changes[nr++] = item->commit;
	}
	for (size_t i = 0; strset_get_size(&wanted) && i < ev->upstreams.nr; i++) {
		struct commit *tip = ev->upstreams.items[i].util;
		struct rev_info revs;

		size_t outside = 0;

		repo_init_revisions(ev->repo, &revs, NULL);
		for (size_t j = 0; j < nr; j++) {
			/*
			 * A change already in the upstream (its tip, even)
			 * would hide what lies below it; it has nothing to
			 * look for there either.
			 */
			if (oidset_contains(&ev->in_upstream[i],
					    &changes[j]->object.oid))
				continue;
			changes[j]->object.flags |= UNINTERESTING;
			add_pending_object(&revs, &changes[j]->object, "");
			outside++;
		}
		/* Without a change outside it, the walk would be unbounded. */
		if (outside)
			find_ids_in_upstream(ev, &revs, tip, i, &wanted);
		release_revisions(&revs);
		/* Leave no mark for the walks that come after. */
		clear_commit_marks_many(nr, changes, ALL_REV_FLAGS);
		clear_commit_marks(tip, ALL_REV_FLAGS);
	}
	free(changes);
	strset_clear(&wanted);
	strbuf_release(&id);
}

/*
 * Whether every version of a change in `versions` (metacommits are
 * skipped) makes the same patch as `commit`: it was only rebased or
 * reworded, never amended in content.
 */
static int versions_same_patch(struct repository *r, struct commit *commit,
			       struct oidset *versions)
{
	struct diff_options opts;
	struct object_id patch, other;
	struct oidset_iter iter;
	const struct object_id *oid;
	int same = 1;

	repo_diff_setup(r, &opts);
	opts.detect_rename = 0;
	opts.flags.recursive = 1;
	diff_setup_done(&opts);
	if (commit_patch_id(commit, &opts, &patch, 0))
		same = 0;
	oidset_iter_init(versions, &iter);
	while (same && (oid = oidset_iter_next(&iter))) {
		struct commit *version = lookup_commit_reference_gently(r, oid, 1);

		if (!version || repo_parse_commit(r, version)) {
			same = 0;	/* unknown: assume it was amended */
			break;
		}
		if (is_metacommit(r, version))
			continue;
		if (commit_patch_id(version, &opts, &other, 0) ||
		    !oideq(&patch, &other))
			same = 0;
	}
	diff_free(&opts);
	return same;
}

/*
 * The commit of an upstream that carries the change id of `item`'s
 * commit without being that commit: the change landed there, edited (by
 * the maintainer, or by a tool that keeps change ids); NULL if there is
 * none. Sets `upstream` to the upstream that has it.
 *
 * Only when that cannot drop work: not when that commit is an earlier
 * version of the change (it landed, and the change was amended since),
 * nor when the change was amended in content here (the upstream commit
 * may be made from a version before that amend; then the change is
 * rebased onto the upstream, as without ids).
 */
static struct commit *landed_as(struct evolver *ev, struct change_node *item,
				struct string_list_item **upstream)
{
	struct strbuf id = STRBUF_INIT;
	struct landed_commit *landed = NULL;
	struct oidset versions = OIDSET_INIT;
	struct string_list_item *name;

	if (item->remote || !item->refnames.nr)
		return NULL;
	if (!ev->ids_in_upstreams_ready)
		find_ids_in_upstreams(ev);
	if (!strmap_get_size(&ev->ids_in_upstreams) ||
	    !commit_change_id(ev->repo, item->commit, &id))
		goto out;
	landed = strmap_get(&ev->ids_in_upstreams, id.buf);
	if (!landed || landed->ambiguous) {
		landed = NULL;
		goto out;
	}
	for_each_string_list_item(name, &item->refnames) {
		struct change_head *head = change_graph_local_head(&ev->graph,
								   name->string);

		if (head)
			change_history_add(ev->repo, &head->head, &versions);
	}
	if (oidset_contains(&versions, &landed->commit->object.oid) ||
	    !versions_same_patch(ev->repo, item->commit, &versions))
		landed = NULL;
	else
		*upstream = &ev->upstreams.items[landed->upstream];
out:
	oidset_clear(&versions);
	strbuf_release(&id);
	return landed ? landed->commit : NULL;
}

/* The first upstream that has `commit` in its history, or NULL. */
static struct string_list_item *upstream_containing(struct evolver *ev,
						    struct commit *commit)
{
	struct string_list_item *upstream;

	if (!ev->upstreams.nr)
		return NULL;
	if (!ev->in_upstream)
		find_commits_in_upstreams(ev);
	for_each_string_list_item(upstream, &ev->upstreams) {
		size_t i = upstream - ev->upstreams.items;
		int ret;

		if (upstream->util == commit)
			return upstream;
		if (oidset_contains(&ev->asked_upstreams, &commit->object.oid))
			ret = oidset_contains(&ev->in_upstream[i],
					      &commit->object.oid);
		else
			ret = repo_in_merge_bases(ev->repo, commit,
						  upstream->util);

		if (ret < 0)
			return NULL;
		if (ret)
			return upstream;
	}
	return NULL;
}

/*
 * What `commit` becomes: the newest version of it if it is obsolete, its
 * evolved version if it is the content of a change, or itself. Sets
 * `*changed` if that is not `commit`, and `*item` to the change it belongs
 * to, if any. Returns NULL with a message in ev->err on failure.
 */
static struct commit *resolve(struct evolver *ev, struct commit *commit,
			      int *changed, struct change_node **item)
{
	struct obsolete_commit *obsolete;

	*item = NULL;
	obsolete = oidmap_get(&ev->graph.obsolete, &commit->object.oid);
	if (obsolete) {
		if (obsolete->divergent) {
			report_divergence(ev, obsolete);
			return NULL;
		}
		*item = obsolete->newest;
		*changed = 1;
	} else {
		*item = oidmap_get(&ev->graph.items, &commit->object.oid);
		if (!*item)
			*item = change_graph_carried_node(&ev->graph, commit, &ev->upstreams);
		if (!*item) {
			/* A base in an upstream's history moves to its tip. */
			struct string_list_item *upstream =
				upstream_containing(ev, commit);

			if (!upstream || upstream->util == commit)
				return commit;
			*changed = 1;
			return upstream->util;
		}
	}
	if (visit_deep(ev, *item))
		return NULL;
	if ((*item)->abandoned && !(*item)->dropped) {
		(*item)->dropped = 1;
		add_step(ev, EVOLVE_STEP_DROP_ABANDONED, *item, xstrdup(""));
	}
	if ((*item)->changed)
		*changed = 1;
	return (*item)->result;
}

/* The error names the conflicting paths, one per line. */
static int report_conflict(struct evolver *ev, struct change_node *item,
			   const char *onto)
{
	struct string_list paths = STRING_LIST_INIT_NODUP;
	struct string_list_item *path;

	if (item->commit->parents && item->commit->parents->next)
		strbuf_addf(ev->err,
			    _("could not rebase the merge commit '%s' onto '%s': "
			      "conflict"),
			    change_node_name(item), onto);
	else
		strbuf_addf(ev->err, _("could not rebase '%s' onto '%s': conflict"),
			    change_node_name(item), onto);
	if (ev->merge_result.clean < 0)
		return -1;
	merge_get_conflicted_files(&ev->merge_result, &paths);
	for (size_t i = 0; i < paths.nr; i++) {
		path = &paths.items[i];
		if (i && !strcmp(path->string, paths.items[i - 1].string))
			continue;
		strbuf_addf(ev->err, "\n  %s", path->string);
	}
	string_list_clear(&paths, 1);
	return -1;
}

static void add_rewrite(struct evolver *ev, const struct object_id *old,
			const struct object_id *new)
{
	ALLOC_GROW(ev->rewrites, ev->rewrites_nr + 1, ev->rewrites_alloc);
	oidcpy(&ev->rewrites[ev->rewrites_nr].old, old);
	oidcpy(&ev->rewrites[ev->rewrites_nr].new, new);
	ev->rewrites_nr++;
}

static void start_merging(struct evolver *ev)
{
	if (ev->merging)
		return;
	init_basic_merge_options(&ev->merge_opt, ev->repo);
	ev->merge_opt.show_rename_progress = 0;
	ev->merge_result.clean = 1;
	ev->merging = 1;
}

/* The content of `item` rebased onto `onto`, in memory; NULL on conflict. */
static struct commit *try_pick(struct evolver *ev, struct change_node *item,
			       struct commit *onto)
{
	start_merging(ev);
	return replay_pick_commit(ev->repo, item->commit, onto, &ev->merge_opt,
				  &ev->merge_result, REPLAY_EMPTY_COMMIT_DROP);
}

/* `item` was rebased onto `onto` as `picked` (`onto` itself if emptied). */
static void record_pick(struct evolver *ev, struct change_node *item,
			struct commit *onto, struct commit *picked,
			char *onto_name)
{
	if (picked == onto) {
		item->emptied = 1;
		ALLOC_GROW(ev->emptied, ev->emptied_nr + 1, ev->emptied_alloc);
		ev->emptied[ev->emptied_nr++] = item;
		add_step(ev, EVOLVE_STEP_DELETE_EMPTY, item, onto_name);
	} else {
		add_rewrite(ev, &item->commit->object.oid, &picked->object.oid);
		add_step(ev, EVOLVE_STEP_REBASE, item, onto_name);
	}
	item->result = picked;
}

/* Rebase the content of `item` onto `onto`, in memory. */
static int pick(struct evolver *ev, struct change_node *item,
		struct commit *onto, char *onto_name)
{
	struct commit *picked = try_pick(ev, item, onto);

	if (!picked) {
		report_conflict(ev, item, onto_name);
		free(onto_name);
		if (!ev->merge_result.clean) {
			ev->conflict_item = item;
			ev->conflict_onto = onto;
		}
		return -1;
	}
	record_pick(ev, item, onto, picked, onto_name);
	return 0;
}

/*
 * The first commit down the first-parent history of `commit` that is not
 * a version of a change being visited, i.e. that is below the cycle those
 * changes form; NULL if there is none.
 */
static struct commit *below_cycle(struct evolver *ev, struct commit *commit)
{
	while (commit) {
		struct obsolete_commit *obsolete =
			oidmap_get(&ev->graph.obsolete, &commit->object.oid);
		struct change_node *item = obsolete ? obsolete->newest :
			oidmap_get(&ev->graph.items, &commit->object.oid);

		if (!item || item->state != ITEM_VISITING)
			return commit;
		if (repo_parse_commit(ev->repo, commit))
			return NULL;
		commit = commit->parents ? commit->parents->item : NULL;
	}
	return NULL;
}

/*
 * The changes of the cycle that `item` closes, in the order evolve reached
 * them: the parent of each is an earlier version of the next one's, and
 * that of the last an earlier version of `item`'s. Returns 0, or -1 if the
 * cycle is not made of plain single-parent commits (then only the simple
 * way of breaking it is tried).
 */
static int cycle_members(struct evolver *ev, struct change_node *item,
			 struct change_node ***members, size_t *nr)
{
	struct change_node *member = item;
	size_t alloc = 0;

	*members = NULL;
	*nr = 0;
	do {
		struct commit *parent;
		struct obsolete_commit *obsolete;

		if (member->abandoned || repo_parse_commit(ev->repo, member->commit) ||
		    !member->commit->parents || member->commit->parents->next ||
		    *nr > oidmap_get_size(&ev->graph.items))
			goto fail;
		ALLOC_GROW(*members, *nr + 1, alloc);
		(*members)[(*nr)++] = member;
		parent = member->commit->parents->item;
		obsolete = oidmap_get(&ev->graph.obsolete, &parent->object.oid);
		member = obsolete ? obsolete->newest :
			oidmap_get(&ev->graph.items, &parent->object.oid);
		if (!member || member->state != ITEM_VISITING)
			goto fail;
	} while (member != item);
	return 0;
fail:
	FREE_AND_NULL(*members);
	*nr = 0;
	return -1;
}

/*
 * Try to rebase the cycle `members` (see cycle_members()) onto `onto`
 * with members[first] going first: then the one built on an earlier
 * version of it, and so on around the cycle. On success, record the
 * picks, mark every member done and return 0; on a conflict, return 1
 * and leave nothing recorded.
 */
static int try_cycle_order(struct evolver *ev, struct change_node **members,
			   size_t nr, size_t first, struct commit *onto,
			   struct change_node *onto_item)
{
	struct commit **picked;
	struct commit *prev = onto;
	int ret = 0;

	ALLOC_ARRAY(picked, nr);
	for (size_t i = 0; i < nr; i++) {
		struct change_node *member = members[(first + nr - i) % nr];

		picked[i] = try_pick(ev, member, prev);
		if (!picked[i]) {
			ret = 1;
			goto out;
		}
		prev = picked[i];
	}
	prev = onto;
	for (size_t i = 0; i < nr; i++) {
		struct change_node *member = members[(first + nr - i) % nr];

		record_pick(ev, member, prev, picked[i],
			    describe_onto(ev, onto_item, prev));
		member->changed = 1;
		member->state = ITEM_DONE;
		onto_item = member;
		prev = picked[i];
	}
out:
	free(picked);
	return ret;
}

/*
 * `item` was reached again while its parent was being evolved: the
 * changes form a cycle (each is based on an obsolete version of the
 * next). The design breaks it by picking one to go first, onto the
 * commit below the cycle, the others following onto it; if that
 * conflicts, each of the other changes is tried first in turn, and if
 * every order conflicts, `item` goes first and evolve stops on its
 * conflict.
 */
static int break_cycle(struct evolver *ev, struct change_node *item)
{
	struct commit *base, *onto;
	struct change_node *onto_item;
	struct change_node **members;
	size_t nr;
	int changed = 0;

	base = item->commit->parents ?
		below_cycle(ev, item->commit->parents->item) : NULL;
	if (!base) {
		strbuf_addf(ev->err, _("the changes form a cycle at '%s', "
				       "with no commit below it"),
			    change_node_name(item));
		return -1;
	}
	onto = resolve(ev, base, &changed, &onto_item);
	if (!onto)
		return -1;

	if (!cycle_members(ev, item, &members, &nr)) {
		int ret = 1;

		for (size_t first = 0; ret > 0 && first < nr; first++)
			ret = try_cycle_order(ev, members, nr, first, onto,
					      onto_item);
		free(members);
		if (!ret)
			return 0;
	}

	item->changed = 1;
	item->state = ITEM_DONE;
	if (item->abandoned)
		item->result = onto;
	else if (pick(ev, item, onto, describe_onto(ev, onto_item, onto)))
		return -1;
	return 0;
}

/*
 * Rebase the merge commit of `item` onto `parents`, in memory: the edit
 * the merge makes to each parent that moved is carried onto its new
 * version, one three-way merge per moved parent (old parent, new parent,
 * the merge's tree so far). The message and author stay. A conflict is
 * an error, not a stop: "git evolve --continue" only knows single-parent
 * picks.
 */
static int pick_merge(struct evolver *ev, struct change_node *item,
		      struct commit_list *parents, char *onto_name)
{
	struct repository *r = ev->repo;
	struct tree *tree = repo_get_commit_tree(r, item->commit);
	struct commit_list *old, *new;
	struct commit_list *unique = NULL, **tail = &unique;
	struct object_id oid;
	int ret;

	start_merging(ev);
	for (old = item->commit->parents, new = parents; old && new;
	     old = old->next, new = new->next) {
		if (old->item == new->item)
			continue;
		if (repo_parse_commit(r, old->item) ||
		    repo_parse_commit(r, new->item)) {
			strbuf_addf(ev->err, _("could not parse the parents of '%s'"),
				    change_node_name(item));
			free(onto_name);
			return -1;
		}
		ev->merge_opt.ancestor = "old parent";
		ev->merge_opt.branch1 = "new parent";
		ev->merge_opt.branch2 = change_node_name(item);
		merge_incore_nonrecursive(&ev->merge_opt,
					  repo_get_commit_tree(r, old->item),
					  repo_get_commit_tree(r, new->item),
					  tree, &ev->merge_result);
		if (ev->merge_result.clean <= 0) {
			report_conflict(ev, item, onto_name);
			set_stop(ev->result, EVOLVE_STOP_MERGE_COMMIT,
				 change_node_name(item), NULL);
			free(onto_name);
			return -1;
		}
		tree = ev->merge_result.tree;
	}

	/* Two parents that became one commit are one parent. */
	for (new = parents; new; new = new->next)
		if (!commit_list_contains(new->item, unique))
			tail = commit_list_append(new->item, tail);
	ret = evolve_commit_like(r, item->commit, &tree->object.oid, unique,
				 &oid);
	commit_list_free(unique);
	if (ret) {
		strbuf_addstr(ev->err, _("could not write the rebased merge"));
		free(onto_name);
		return -1;
	}
	add_rewrite(ev, &item->commit->object.oid, &oid);
	add_step(ev, EVOLVE_STEP_REBASE, item, onto_name);
	item->result = lookup_commit(r, &oid);
	return 0;
}

/*
 * A merge commit moves when any of its parents does; an abandoned one is
 * dropped, its children going onto its first parent.
 */
static int visit_merge(struct evolver *ev, struct change_node *item)
{
	struct commit_list *parents = NULL, **tail = &parents;
	struct change_node *onto_item = NULL, *first_item = NULL;
	int changed = 0, ret = 0;

	for (struct commit_list *p = item->commit->parents; p; p = p->next) {
		struct commit *onto = resolve(ev, p->item, &changed, &onto_item);

		if (!onto) {
			commit_list_free(parents);
			return -1;
		}
		if (!parents)
			first_item = onto_item;
		tail = &commit_list_insert(onto, tail)->next;
	}
	if (item->state == ITEM_DONE) {
		/* it went first to break a cycle */
	} else if (item->abandoned) {
		item->result = parents->item;
		item->changed = 1;
	} else if (changed) {
		char *onto_name = describe_onto(ev, first_item, parents->item);

		item->changed = 1;
		ret = pick_merge(ev, item, parents, onto_name);
	}
	commit_list_free(parents);
	return ret;
}

/*
 * How deep visit() may recurse. visit_deep() leaves it only the cycles to
 * break (a change built on an older version of a change built on it), which
 * are short; a longer one made by damaged or crafted data is an error, not
 * a stack overflow.
 */
#define MAX_VISIT_DEPTH 1000

static int visit_one(struct evolver *ev, struct change_node *item);

static int visit(struct evolver *ev, struct change_node *item)
{
	int ret;

	if (ev->visit_depth >= MAX_VISIT_DEPTH) {
		strbuf_addf(ev->err, _("the changes form a cycle of more than "
				       "%d changes at '%s'"),
			    MAX_VISIT_DEPTH, change_node_name(item));
		return -1;
	}
	ev->visit_depth++;
	ret = visit_one(ev, item);
	ev->visit_depth--;
	return ret;
}

/*
 * The change that resolve() visits for `commit`, a parent of a change:
 * the newest version of it if it is obsolete, its own, or that of a commit
 * carried along; NULL if there is none.
 */
static struct change_node *parent_item(struct evolver *ev,
				       struct commit *commit)
{
	struct obsolete_commit *obsolete =
		oidmap_get(&ev->graph.obsolete, &commit->object.oid);
	struct change_node *item;

	if (obsolete)
		return obsolete->divergent ? NULL : obsolete->newest;
	item = oidmap_get(&ev->graph.items, &commit->object.oid);
	return item ? item : change_graph_carried_node(&ev->graph, commit, &ev->upstreams);
}

/*
 * A change that `item` is built on and that is still to visit, or NULL.
 * Sets `*cycle` if that change is already waiting for `item`.
 */
static struct change_node *pending_parent(struct evolver *ev,
					  struct change_node *item, int *cycle)
{
	if (repo_parse_commit(ev->repo, item->commit))
		return NULL;	/* visit() says so */
	for (struct commit_list *p = item->commit->parents; p; p = p->next) {
		struct change_node *dep = parent_item(ev, p->item);

		if (!dep || dep->state == ITEM_DONE)
			continue;
		if (dep->state == ITEM_VISITING || dep->queued)
			*cycle = 1;
		return dep;
	}
	return NULL;
}

/*
 * visit() `item` after the changes it is built on, which a stack of its
 * own holds: a line of changes (or of commits carried along) as long as
 * the repository makes it costs memory, not depth of recursion. Only a
 * cycle is left to visit(), which breaks it.
 */
static int visit_deep(struct evolver *ev, struct change_node *item)
{
	struct change_node **stack = NULL;
	size_t nr = 0, alloc = 0;
	int ret = 0;

	if (item->state != ITEM_PENDING)
		return visit(ev, item);
	ALLOC_GROW(stack, nr + 1, alloc);
	stack[nr++] = item;
	item->queued = 1;
	while (nr) {
		struct change_node *top = stack[nr - 1];
		struct change_node *dep = NULL;
		int cycle = 0;

		if (top->state == ITEM_PENDING)
			dep = pending_parent(ev, top, &cycle);
		if (dep && !cycle) {
			ALLOC_GROW(stack, nr + 1, alloc);
			stack[nr++] = dep;
			dep->queued = 1;
			continue;
		}
		/*
		 * The changes from `dep` up form a cycle: visit() goes round
		 * it from `dep`, the way it was entered, and breaks it there.
		 */
		if (dep && dep->queued)
			while (stack[nr - 1] != dep)
				stack[--nr]->queued = 0;
		top = stack[--nr];
		top->queued = 0;
		if (visit(ev, top)) {
			ret = -1;
			break;
		}
	}
	while (nr)
		stack[--nr]->queued = 0;
	free(stack);
	return ret;
}

static int visit_one(struct evolver *ev, struct change_node *item)
{
	struct commit *parent, *onto;
	struct change_node *onto_item;
	int changed = 0;

	if (item->state == ITEM_DONE)
		return 0;
	if (item->state == ITEM_VISITING)
		return break_cycle(ev, item);
	item->state = ITEM_VISITING;
	item->result = item->commit;

	if (repo_parse_commit(ev->repo, item->commit)) {
		strbuf_addf(ev->err, _("could not parse the commit of '%s'"),
			    change_node_name(item));
		return -1;
	}
	parent = item->commit->parents ? item->commit->parents->item : NULL;

	if (!item->abandoned && ev->upstreams.nr) {
		struct string_list_item *upstream =
			upstream_containing(ev, item->commit);
		struct commit *as = upstream ? NULL :
			landed_as(ev, item, &upstream);

		if (upstream) {
			/*
			 * Landed: its children go onto the upstream, which
			 * rewrites them unless it is this very commit.
			 */
			item->result = upstream->util;
			item->changed = upstream->util != item->commit;
			item->emptied = item->landed = 1;
			/* A remote version landed: its author's to delete. */
			if (!item->remote && as)
				add_step(ev, EVOLVE_STEP_DELETE_LANDED_AS, item,
					 xstrdup(upstream->string))->merge =
					xstrdup(repo_find_unique_abbrev(ev->repo,
									&as->object.oid,
									DEFAULT_ABBREV));
			else if (!item->remote)
				add_step(ev, EVOLVE_STEP_DELETE_LANDED, item,
					 xstrdup(upstream->string));
			item->state = ITEM_DONE;
			return 0;
		}
	}

	if (parent && item->commit->parents->next) {
		if (visit_merge(ev, item))
			return -1;
	} else if (parent) {
		onto = resolve(ev, parent, &changed, &onto_item);
		if (!onto)
			return -1;
		if (item->state == ITEM_DONE)
			return 0;	/* it went first to break a cycle */
		if (item->abandoned) {
			/*
			 * Drop it: its children go onto its parent. This is
			 * reported when a child or a ref moves off it.
			 */
			item->result = onto;
			item->changed = 1;
		} else if (changed) {
			item->changed = 1;
			if (pick(ev, item, onto,
				 describe_onto(ev, onto_item, onto)))
				return -1;
		}
	}
	item->state = ITEM_DONE;
	return 0;
}

/*
 * Which divergences first_divergence() looks at: two versions fetched
 * from remotes diverging is their authors' business (evolve stops on it
 * only if a local change is built on the commit they both replaced);
 * one of them remote is the user's, but only a merge can resolve it.
 */
enum divergence_kind {
	DIVERGENCE_LOCAL,
	DIVERGENCE_WITH_REMOTE,
};

/*
 * A divergent commit of that kind for which `only` (if not NULL) holds,
 * the same one every time, or NULL.
 */
static struct obsolete_commit *first_divergence_where(
	struct evolver *ev, enum divergence_kind kind,
	int (*only)(struct evolver *ev, struct obsolete_commit *divergent))
{
	struct oidmap_iter iter;
	struct obsolete_commit *obsolete;
	struct obsolete_commit *first = NULL;

	oidmap_iter_init(&ev->graph.obsolete, &iter);
	while ((obsolete = oidmap_iter_next(&iter))) {
		unsigned remotes;

		if (!obsolete->divergent)
			continue;
		remotes = obsolete->newest->remote + obsolete->divergent->remote;
		if (remotes == 2 ||
		    (remotes && kind == DIVERGENCE_LOCAL))
			continue;
		if (first && oidcmp(&obsolete->entry.oid, &first->entry.oid) > 0)
			continue;
		if (!only || only(ev, obsolete))
			first = obsolete;
	}
	return first;
}

static struct obsolete_commit *first_divergence(struct evolver *ev,
						enum divergence_kind kind)
{
	return first_divergence_where(ev, kind, NULL);
}

/* Divergence stops evolve before anything moves. */
static int check_divergence(struct evolver *ev)
{
	struct obsolete_commit *first =
		first_divergence(ev, DIVERGENCE_WITH_REMOTE);

	if (!first)
		return 0;
	report_divergence(ev, first);
	return -1;
}

/*
 * The remote versions that no local change needed are their authors':
 * done as they are, so that HEAD or a branch on one does not make
 * follow() rebase it.
 */
static void leave_remote_versions(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;

	change_table_refnames(&ev->graph.remote_table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head =
			change_table_get(&ev->graph.remote_table, name->string);
		struct change_node *item = head ?
			oidmap_get(&ev->graph.items, &head->content) : NULL;

		if (item && item->remote && item->state == ITEM_PENDING) {
			item->state = ITEM_DONE;
			item->result = item->commit;
		}
	}
	string_list_clear(&refnames, 0);
}

static int visit_all(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct progress *progress = NULL;
	int ret = 0;

	if (check_divergence(ev))
		return -1;

	change_table_refnames(&ev->graph.table, &refnames);
	if (ev->opts->show_progress)
		progress = start_delayed_progress(ev->repo, _("Evolving changes"),
						  refnames.nr);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev->graph.table,
							    name->string);
		struct change_node *item;

		display_progress(progress, name - refnames.items + 1);
		if (!head || !(item = oidmap_get(&ev->graph.items,
						 &head->content)))
			continue;
		if (visit_deep(ev, item)) {
			ret = -1;
			break;
		}
	}
	stop_progress(&progress);
	string_list_clear(&refnames, 0);
	if (!ret)
		leave_remote_versions(ev);
	return ret;
}

/*
 * Rebase everything in memory. Each pick writes a tree and a commit: hold
 * them to write them out together, as a single pack rather than a file
 * each, before anything refers to them.
 */
static int evolve_in_memory(struct evolver *ev)
{
	int ret;

	/* A dry run holds them from its start, to drop them at its end. */
	if (ev->dry_run)
		return visit_all(ev);
	odb_hold_writes(ev->repo->objects);
	ret = visit_all(ev);
	if (odb_release_writes(ev->repo->objects)) {
		strbuf_addstr(ev->err, _("could not write the evolved commits"));
		/* Nothing to stop at: the conflict's commits are missing. */
		ev->conflict_item = NULL;
		ret = -1;
	}
	return ret;
}

struct follow_cb {
	struct evolver *ev;
	struct ref_move *moves;
	size_t moves_nr, moves_alloc;
	/* The branch HEAD is on, which moves with the working tree. */
	const char *head_branch;
	struct object_id head_new;
	int head_moves;
	int failed;
	/* The worktrees, to leave alone the branches others have checked out. */
	struct worktree **worktrees;
};

/*
 * Where a ref at `oid` must go, or NULL if it stays. A ref follows a
 * commit that evolve rewrote (rebased, emptied or dropped), or an
 * obsolete commit to its newest version. A commit in an upstream (a
 * landed change, or a commit below the changes) is not rewritten: only
 * HEAD (`is_head`) moves from there to the upstream, as "git rebase
 * <upstream>" moves the branch it is on; other branches there stay.
 */
static struct commit *follow(struct evolver *ev, const struct object_id *oid,
			     int is_head, int *failed,
			     struct change_node **item)
{
	struct commit *commit = lookup_commit_reference_gently(ev->repo, oid, 1);
	struct commit *to;
	int changed = 0;

	*item = NULL;
	if (!commit)
		return NULL;
	to = resolve(ev, commit, &changed, item);
	if (!to)
		*failed = 1;
	if (!to || !changed || to == commit)
		return NULL;
	if (!is_head && !oidmap_get(&ev->graph.obsolete, &commit->object.oid) &&
	    (!*item || (*item)->landed))
		return NULL;
	return to;
}

/*
 * The worktree other than this one that has `refname` checked out (or is
 * rebasing or bisecting it), or NULL. Moving that branch would leave the
 * worktree's index and files behind its HEAD, as "git branch -f" refuses
 * to do.
 */
static const struct worktree *checked_out_elsewhere(struct follow_cb *cb,
						    const char *refname)
{
	const struct worktree *wt;

	if (!cb->worktrees)
		cb->worktrees = get_worktrees();
	wt = find_shared_symref(cb->worktrees, "HEAD", refname);
	return wt && !wt->is_current ? wt : NULL;
}

static int follow_branch(const struct reference *ref, void *cb_data)
{
	struct follow_cb *cb = cb_data;
	int is_head = cb->head_branch && !strcmp(ref->name, cb->head_branch);
	const struct worktree *wt;
	struct change_node *item;
	struct commit *to;

	if (ref->flags & REF_ISSYMREF)
		return 0;
	to = follow(cb->ev, ref->oid, is_head, &cb->failed, &item);
	if (cb->failed)
		return -1;
	if (!to)
		return 0;
	if (!is_head && (wt = checked_out_elsewhere(cb, ref->name))) {
		string_list_append(&cb->ev->result->skipped_refs,
				   ref->name)->util = xstrdup(wt->path);
		return 0;
	}
	string_list_append(&cb->ev->result->moved_refs, ref->name)->util =
		describe_onto(cb->ev, item, to);
	if (is_head) {
		oidcpy(&cb->head_new, &to->object.oid);
		cb->head_moves = 1;
		return 0;
	}
	ALLOC_GROW(cb->moves, cb->moves_nr + 1, cb->moves_alloc);
	cb->moves[cb->moves_nr].refname = xstrdup(ref->name);
	oidcpy(&cb->moves[cb->moves_nr].old, ref->oid);
	oidcpy(&cb->moves[cb->moves_nr].new, &to->object.oid);
	cb->moves_nr++;
	return 0;
}

static void add_move(struct follow_cb *cb, const char *refname,
		     const struct object_id *old, const struct object_id *new)
{
	ALLOC_GROW(cb->moves, cb->moves_nr + 1, cb->moves_alloc);
	cb->moves[cb->moves_nr].refname = xstrdup(refname);
	oidcpy(&cb->moves[cb->moves_nr].old, old);
	oidcpy(&cb->moves[cb->moves_nr].new, new);
	cb->moves_nr++;
}

/*
 * Deleting a ref deletes its reflog too, so a change that evolve deletes
 * (it landed or became empty) or that "git change prune" deletes is moved
 * to refs/hiddenmetas/, where it is kept, with its commits, until "git
 * change restore" brings it back.
 */
static void add_hide_moves(struct follow_cb *cb, const char *refname,
			   const struct object_id *old,
			   const struct object_id *head)
{
	struct ref_store *refs = get_main_ref_store(cb->ev->repo);
	struct strbuf hidden = STRBUF_INIT;
	struct object_id null_oid, old_hidden;
	const char *base;

	oidclr(&null_oid, cb->ev->repo->hash_algo);
	add_move(cb, refname, old, &null_oid);
	if (!skip_prefix(refname, CHANGES_REF_PREFIX, &base))
		return;
	strbuf_addf(&hidden, "%s%s", HIDDEN_CHANGES_REF_PREFIX, base);
	if (refs_read_ref(refs, hidden.buf, &old_hidden))
		oidcpy(&old_hidden, &null_oid);
	add_move(cb, hidden.buf, &old_hidden, head);
	strbuf_release(&hidden);
}

static void add_deletions(struct evolver *ev, struct follow_cb *cb)
{
	for (size_t i = 0; i < ev->result->steps_nr; i++) {
		struct evolve_step *step = &ev->result->steps[i];
		struct string_list_item *name;

		if (step->type != EVOLVE_STEP_DELETE_EMPTY &&
		    step->type != EVOLVE_STEP_DELETE_LANDED &&
		    step->type != EVOLVE_STEP_DELETE_LANDED_AS)
			continue;
		/*
		 * A carried commit has no change to hide. A change that
		 * caught up with a remote version is hidden at that version.
		 */
		for_each_string_list_item(name, &step->refnames) {
			struct change_head *old =
				change_table_get(&ev->graph.table,
						 name->string);
			struct change_head *head =
				change_graph_local_head(&ev->graph,
							name->string);

			if (old && head)
				add_hide_moves(cb, name->string, &old->head,
					       &head->head);
		}
	}
}

/* Whether `refname` is among the refs that `cb` moves already. */
static int moved_by(const struct follow_cb *cb, const char *refname)
{
	for (size_t i = 0; i < cb->moves_nr; i++)
		if (!strcmp(cb->moves[i].refname, refname))
			return 1;
	return 0;
}

/*
 * The local changes that catch up with a remote version move there,
 * unless they are hidden: the writer continues the history of those that
 * are rewritten from that version.
 */
static void add_catch_up_moves(struct evolver *ev, struct follow_cb *cb)
{
	struct string_list_item *entry;

	for_each_string_list_item(entry, &ev->graph.caught_up) {
		struct caught_up *caught_up = entry->util;

		/* By id, a rewrite instead (rewrites_to_record()). */
		if (caught_up->remote_refname &&
		    !moved_by(cb, entry->string))
			add_move(cb, entry->string, &caught_up->old,
				 &caught_up->head.head);
	}
}

/* The changes whose content evolve rewrites, for the ref transaction. */
static void known_changes(struct evolver *ev, struct string_list *out)
{
	for (size_t i = 0; i < ev->rewrites_nr; i++) {
		struct change_node *item = oidmap_get(&ev->graph.items,
						      &ev->rewrites[i].old);
		struct string_list_item *name;

		/*
		 * A remote version is not the user's to move: the writer
		 * records its new version in a local change continuing it.
		 */
		if (item->remote)
			continue;
		for_each_string_list_item(name, &item->refnames) {
			struct caught_up *caught_up =
				change_graph_caught_up_by_id(&ev->graph,
							     name->string);

			/* Where it is: rewrites_to_record() moves it first. */
			string_list_append(out, name->string)->util =
				caught_up ? &caught_up->was : name->util;
		}
	}
}

/*
 * The rewrites to record: first those of the changes caught up by id
 * (catch_up_by_id()), whose commit becomes the fetched one, so that a
 * rewrite of the fetched commit by evolve continues from there; then
 * evolve's own. Not for a change that evolve deletes (`cb`'s moves hide
 * it). Adds those changes to `changes`, at their heads as they are.
 * Returns how many rewrites are in `*out`, which the caller frees.
 */
static size_t rewrites_to_record(struct evolver *ev, struct follow_cb *cb,
				 struct string_list *changes,
				 struct commit_rewrite **out)
{
	struct string_list_item *entry;
	struct commit_rewrite *all;
	size_t nr = 0;

	ALLOC_ARRAY(all, st_add(ev->graph.caught_up.nr, ev->rewrites_nr));
	for_each_string_list_item(entry, &ev->graph.caught_up) {
		struct caught_up *caught_up = entry->util;

		if (caught_up->remote_refname ||
		    moved_by(cb, entry->string) ||
		    !oidmap_get(&ev->graph.items, &caught_up->head.content))
			continue;
		oidcpy(&all[nr].old, &caught_up->was.content);
		oidcpy(&all[nr].new, &caught_up->head.content);
		nr++;
		if (!unsorted_string_list_has_string(changes, entry->string))
			string_list_append(changes, entry->string)->util =
				&caught_up->was;
	}
	COPY_ARRAY(all + nr, ev->rewrites, ev->rewrites_nr);
	*out = all;
	return nr + ev->rewrites_nr;
}

static int update_head(struct evolver *ev, struct follow_cb *cb)
{
	struct reset_head_opts opts = {
		.oid = &cb->head_new,
		.branch = ev->head_branch,
		.flags = ev->head_branch ? 0 : RESET_HEAD_DETACH,
		.default_reflog_action = "evolve",
	};
	char *autostash = evolve_state_path(ev->repo, "autostash");
	int ret;

	if (repo_read_index(ev->repo) < 0) {
		free(autostash);
		strbuf_addstr(ev->err, _("could not read the index"));
		return -1;
	}
	if (!ev->resuming)
		create_autostash(ev->repo, autostash);
	ret = reset_head(ev->repo, &opts);
	if (ret)
		strbuf_addf(ev->err, _("could not check out %s; the changes and "
				       "branches have been evolved"),
			    oid_to_hex(&cb->head_new));
	apply_autostash(autostash);
	free(autostash);
	return ret ? -1 : 0;
}

static int write_results(struct evolver *ev)
{
	struct follow_cb cb = { .ev = ev };
	struct ref_store *refs = get_main_ref_store(ev->repo);
	struct refs_for_each_ref_options opts = { .prefix = "refs/heads/" };
	struct string_list changes = STRING_LIST_INIT_NODUP;
	struct commit_rewrite *rewrites = NULL;
	size_t rewrites_nr;
	int ret = -1;

	/* Where HEAD goes: with its branch, or where it was if nothing moves. */
	oidcpy(&cb.head_new, &ev->head_oid);
	cb.head_moves = ev->resuming;
	if (ev->head_branch) {
		cb.head_branch = ev->head_branch;
	} else if (!is_null_oid(&ev->head_oid)) {
		struct change_node *item;
		struct commit *to = follow(ev, &ev->head_oid, 1, &cb.failed,
					   &item);

		if (to) {
			oidcpy(&cb.head_new, &to->object.oid);
			cb.head_moves = 1;
		}
	}
	if (cb.failed ||
	    refs_for_each_ref_ext(refs, follow_branch, &cb, &opts) || cb.failed)
		goto out;
	add_deletions(ev, &cb);
	add_catch_up_moves(ev, &cb);

	if (ev->opts->dry_run) {
		ret = 0;
		goto out;
	}

	known_changes(ev, &changes);
	rewrites_nr = rewrites_to_record(ev, &cb, &changes, &rewrites);
	if (record_rewrites_and_move_refs(ev->repo, &changes, rewrites,
					  rewrites_nr, cb.moves, cb.moves_nr,
					  "evolve", ev->err))
		goto out;
	ret = cb.head_moves ? update_head(ev, &cb) : 0;

out:
	free(rewrites);
	string_list_clear(&changes, 0);
	for (size_t i = 0; i < cb.moves_nr; i++)
		free((char *)cb.moves[i].refname);
	free(cb.moves);
	if (cb.worktrees)
		free_worktrees(cb.worktrees);
	return ret;
}

static void evolver_init(struct evolver *ev, struct repository *r,
			 struct strbuf *err)
{
	memset(ev, 0, sizeof(*ev));
	ev->repo = r;
	ev->err = err;
	string_list_init_dup(&ev->upstreams);
	change_graph_init(&ev->graph, r);
	oidset_init(&ev->asked_upstreams, 0);
	strmap_init(&ev->ids_in_upstreams);
}

/*
 * Start `ev` on a run of `opts`: in a dry run (`dry_run` not NULL), the
 * changes will load as they would be after what it previewed.
 */
static void evolver_start(struct evolver *ev, struct repository *r,
			  const struct evolve_options *opts,
			  struct evolve_result *result,
			  struct strbuf *saved_changes,
			  struct dry_run *dry_run, struct strbuf *err)
{
	evolver_init(ev, r, err);
	ev->opts = opts;
	ev->result = result;
	ev->saved_changes = saved_changes;
	ev->dry_run = dry_run;
	if (dry_run)
		change_graph_show_moved(&ev->graph, &dry_run->moved);
}

static void evolver_release(struct evolver *ev)
{
	change_graph_release(&ev->graph);
	if (ev->in_upstream)
		for (size_t i = 0; i < ev->upstreams.nr; i++)
			oidset_clear(&ev->in_upstream[i]);
	free(ev->in_upstream);
	oidset_clear(&ev->asked_upstreams);
	strmap_clear(&ev->ids_in_upstreams, 1);
	string_list_clear(&ev->upstreams, 0);
}

static void read_head(struct evolver *ev)
{
	struct ref_store *refs = get_main_ref_store(ev->repo);
	int flags = 0;
	const char *head = refs_resolve_ref_unsafe(refs, "HEAD", 0,
						   &ev->head_oid, &flags);

	if (head && (flags & REF_ISSYMREF) && starts_with(head, "refs/heads/"))
		ev->head_branch = xstrdup(head);
	else if (!head)
		oidclr(&ev->head_oid, ev->repo->hash_algo);
}

static int read_stopped_upstreams(struct evolver *ev)
{
	char *path = evolve_state_path(ev->repo, "upstreams");
	struct strbuf buf = STRBUF_INIT;
	const char *p;
	int ret = 0;

	if (strbuf_read_file(&buf, path, 0) < 0)
		goto out;	/* none */
	for (p = buf.buf; *p; ) {
		struct object_id oid;
		const char *end = strchrnul(p, '\n');
		struct commit *commit;

		if (parse_oid_hex(p, &oid, &p) || *p != ' ' ||
		    !(commit = lookup_commit_reference(ev->repo, &oid))) {
			ret = -1;
			break;
		}
		string_list_append_nodup(&ev->upstreams,
					 xmemdupz(p + 1, end - p - 1))->util = commit;
		p = *end ? end + 1 : end;
	}
out:
	strbuf_release(&buf);
	free(path);
	return ret;
}

/*
 * Where the stopped evolve started. Returns 0, -1 if the state is
 * incomplete (evolve was interrupted as it stopped, before HEAD moved if
 * orig-head is missing), or -2 if it says something that cannot be: then
 * neither --continue nor --abort can use it.
 */
static int read_stopped_head(struct evolver *ev)
{
	char *path = evolve_state_path(ev->repo, "head-name");
	char *onto = evolve_state_path(ev->repo, "onto");
	struct strbuf buf = STRBUF_INIT;
	const char *invalid = NULL;
	int ret = -1;

	if (strbuf_read_file(&buf, path, 0) < 0)
		goto out;
	if (evolve_read_state_oid(ev->repo, "orig-head", &ev->head_oid)) {
		/* It is written before "onto", and before HEAD moves. */
		if (file_exists(onto))
			invalid = "orig-head";
		goto out;
	}
	if (read_stopped_upstreams(ev))
		goto out;
	strbuf_trim(&buf);
	if (is_null_oid(&ev->head_oid))
		invalid = "orig-head";
	else if (strcmp(buf.buf, "detached") &&
		 (!starts_with(buf.buf, "refs/heads/") ||
		  check_refname_format(buf.buf, 0)))
		invalid = "head-name";
	else if (strcmp(buf.buf, "detached"))
		ev->head_branch = strbuf_detach(&buf, NULL);
	if (!invalid)
		ret = 0;
out:
	if (invalid) {
		char *dir = repo_git_path(ev->repo, EVOLVE_STATE_DIR);

		strbuf_addf(ev->err, _("the state of the stopped evolve is damaged "
				       "(missing or invalid %s); remove \"%s\" "
				       "to forget it"), invalid, dir);
		free(dir);
		ret = -2;
	} else if (ret) {
		strbuf_addstr(ev->err, _("the state of the stopped evolve is damaged; "
					 "use \"git evolve --abort\""));
	}
	strbuf_release(&buf);
	free(onto);
	free(path);
	return ret;
}

/*
 * How to call `onto`, where --continue concluded a pick: the change an
 * earlier pick of the stopped evolve made it, or what describe_onto()
 * says.
 */
static char *describe_resumed_onto(struct evolver *ev, struct commit *onto)
{
	struct oidmap_iter iter;
	struct change_node *item = oidmap_get(&ev->graph.items,
					      &onto->object.oid);

	/* A change that needed no rebase, e.g. the amended bottom one. */
	if (item && item->state != ITEM_DONE && item->refnames.nr &&
	    !item->abandoned)
		return xstrdup(change_node_name(item));
	oidmap_iter_init(&ev->graph.items, &iter);
	while ((item = oidmap_iter_next(&iter)))
		if (item->state == ITEM_DONE && item->result == onto &&
		    item->refnames.nr && !item->emptied)
			return xstrdup(change_node_name(item));
	return describe_onto(ev, NULL, onto);
}

/*
 * The step of `item`, taken over from the stopped evolve: reported then,
 * unless --continue concluded it now (a change that became empty when its
 * conflict was resolved is never deleted without a word).
 */
static void add_seeded_step(struct evolver *ev, enum evolve_step_type type,
			    struct change_node *item)
{
	if (ev->continued_onto &&
	    oideq(&item->commit->object.oid, &ev->continued))
		add_step(ev, type, item,
			 describe_resumed_onto(ev, ev->continued_onto));
	else
		add_step(ev, type, item, xstrdup(""))->resumed = 1;
}

/* Take over what the evolve did before it stopped. */
static void seed_done(struct evolver *ev, const char *done)
{
	const char *p = done;

	while (*p) {
		struct object_id result, old;
		struct change_node *item;
		const char *end = strchrnul(p, '\n');

		if (!parse_oid_hex(p, &result, &p) && *p == ' ' &&
		    !parse_oid_hex(p + 1, &old, &p)) {
			struct commit *commit = lookup_commit(ev->repo, &old);

			item = oidmap_get(&ev->graph.items, &old);
			/* Not a change's: a commit evolve was carrying along. */
			if (!item && commit)
				item = change_graph_add_carried(&ev->graph, commit);
			if (!item)
				goto next;
			item->state = ITEM_DONE;
			item->result = lookup_commit(ev->repo, &result);
			if (starts_with(p, " skip")) {
				item->result = item->commit;
			} else if (starts_with(p, " empty")) {
				item->changed = item->emptied = 1;
				add_seeded_step(ev, EVOLVE_STEP_DELETE_EMPTY,
						item);
			} else {
				item->changed = 1;
				add_rewrite(ev, &old, &result);
				add_seeded_step(ev, EVOLVE_STEP_REBASE, item);
			}
		}
next:
		p = *end ? end + 1 : end;
	}
}

/* Append what this run did to `done` (see EVOLVE_STATE_DIR). */
static void format_done(struct evolver *ev, struct strbuf *done)
{
	for (size_t i = ev->new_rewrites; i < ev->rewrites_nr; i++)
		strbuf_addf(done, "%s %s\n", oid_to_hex(&ev->rewrites[i].new),
			    oid_to_hex(&ev->rewrites[i].old));
	for (size_t i = 0; i < ev->emptied_nr; i++)
		strbuf_addf(done, "%s %s empty\n",
			    oid_to_hex(&ev->emptied[i]->result->object.oid),
			    oid_to_hex(&ev->emptied[i]->commit->object.oid));
}

/*
 * Leave the conflict of ev->conflict_item in the working tree, with HEAD
 * detached at the commit it goes onto, and save what is needed to resume.
 */
static int stop_on_conflict(struct evolver *ev, const char *done_before)
{
	struct repository *r = ev->repo;
	struct strbuf done = STRBUF_INIT;
	struct reset_head_opts opts = {
		.oid = &ev->conflict_onto->object.oid,
		.flags = RESET_HEAD_DETACH,
		.default_reflog_action = "evolve",
	};
	char *autostash = evolve_state_path(r, "autostash");
	struct lock_file lock = LOCK_INIT;
	int ret = -1;

	if (!ev->resuming) {
		char *dir = repo_git_path(r, EVOLVE_STATE_DIR);

		if (mkdir(dir, 0777) && errno != EEXIST) {
			strbuf_addf(ev->err, _("could not create '%s'"), dir);
			free(dir);
			goto out;
		}
		free(dir);
		/* orig-head last: without it, --abort knows HEAD never moved. */
		evolve_write_state(r, "head-name", ev->head_branch ?
				   ev->head_branch : "detached");
		evolve_write_state(r, "orig-head", oid_to_hex(&ev->head_oid));
		if (repo_read_index(r) < 0)
			goto out;
		create_autostash(r, autostash);
	}
	if (!ev->resuming) {
		struct string_list_item *upstream;

		strbuf_reset(&done);
		for_each_string_list_item(upstream, &ev->upstreams)
			strbuf_addf(&done, "%s %s\n",
				    oid_to_hex(&((struct commit *)upstream->util)->object.oid),
				    upstream->string);
		evolve_write_state(r, "upstreams", done.buf);
		strbuf_reset(&done);
		if (ev->saved_changes && ev->saved_changes->len)
			evolve_write_state(r, CHANGES_SAVED_FILE,
					   ev->saved_changes->buf);
	}
	strbuf_addstr(&done, done_before);
	format_done(ev, &done);
	evolve_write_state(r, "done", done.buf);	/* EVOLVE_SAVED_FILE */
	evolve_write_state(r, "current",
			   oid_to_hex(&ev->conflict_item->commit->object.oid));
	evolve_write_state(r, "onto",
			   oid_to_hex(&ev->conflict_onto->object.oid));

	if (reset_head(r, &opts) ||
	    repo_hold_locked_index(r, &lock, LOCK_REPORT_ON_ERROR) < 0)
		goto out;
	/* The in-memory merge of the conflicting pick, into the work tree. */
	merge_switch_to_result(&ev->merge_opt,
			       repo_get_commit_tree(r, ev->conflict_onto),
			       &ev->merge_result, 1, 0);
	ev->merging = 0;
	/* Stopped all the same: say it apart from why evolve stopped. */
	if (write_locked_index(r->index, &lock, COMMIT_LOCK))
		error(_("could not write the index"));
	ret = 1;
out:
	rollback_lock_file(&lock);
	free(autostash);
	strbuf_release(&done);
	return ret;
}

/*
 * --continue after the user committed the resolution on `onto` by hand
 * ("git commit"): that commit, HEAD, is the new version of `current`, as
 * if --continue had written it from the index, which must hold it (no
 * conflict left, nothing staged since). Append it to `done`.
 */
static int take_committed_resolution(struct evolver *ev,
				     const struct object_id *head,
				     const struct object_id *current,
				     struct commit *onto, struct strbuf *done)
{
	struct repository *r = ev->repo;
	struct commit *resolved = lookup_commit(r, head);
	struct object_id tree;

	if (repo_read_index(r) < 0 || unmerged_index(r->index)) {
		strbuf_addstr(ev->err, _("resolve the conflicts and mark them with "
					 "\"git add\" first"));
		return -1;
	}
	if (write_index_as_tree(&tree, r->index, r->index_file, 0, NULL)) {
		strbuf_addstr(ev->err, _("could not write the index as a tree"));
		return -1;
	}
	if (!oideq(&tree, get_commit_tree_oid(resolved))) {
		strbuf_addf(ev->err, _("the index has changes that HEAD, the "
				       "commit made on %s, has not; commit them "
				       "with \"git commit --amend\" or reset "
				       "them first"),
			    repo_find_unique_abbrev(r, &onto->object.oid,
						    DEFAULT_ABBREV));
		return -1;
	}
	oidcpy(&ev->continued, current);
	ev->continued_onto = onto;
	strbuf_addf(done, "%s %s\n", oid_to_hex(head), oid_to_hex(current));
	return 0;
}

/*
 * Conclude the conflicting pick of a stopped evolve, from the index
 * (--continue) or by leaving the change alone (--skip); append it to
 * `done`.
 */
static int resume(struct evolver *ev, enum evolve_action action,
		  struct strbuf *done)
{
	struct repository *r = ev->repo;
	struct object_id current_oid, onto_oid, head, tree;
	struct commit *current, *onto;
	char *path = evolve_state_path(r, "done");
	int ret = -1;

	if (strbuf_read_file(done, path, 0) < 0 ||
	    evolve_read_state_oid(r, "current", &current_oid) ||
	    evolve_read_state_oid(r, "onto", &onto_oid) ||
	    !(current = lookup_commit_reference(r, &current_oid)) ||
	    !(onto = lookup_commit_reference(r, &onto_oid)) ||
	    repo_parse_commit(r, current) || repo_parse_commit(r, onto)) {
		strbuf_addstr(ev->err, _("the state of the stopped evolve is damaged; "
					 "use \"git evolve --abort\""));
		goto out;
	}
	if (refs_read_ref(get_main_ref_store(r), "HEAD", &head)) {
		strbuf_addstr(ev->err, _("could not read HEAD"));
		goto out;
	}
	if (!oideq(&head, &onto_oid)) {
		/* The user committed the resolution, as at a rebase's stop. */
		if (action == EVOLVE_CONTINUE &&
		    evolve_made_on(r, &head, &onto_oid)) {
			ret = take_committed_resolution(ev, &head, &current_oid,
							onto, done);
			goto out;
		}
		if (action == EVOLVE_CONTINUE)
			strbuf_addf(ev->err, _("HEAD moved since evolve stopped at %s, "
					       "and is not one commit made on it; check "
					       "it out again or use \"git evolve --abort\""),
				    repo_find_unique_abbrev(r, &onto_oid, DEFAULT_ABBREV));
		else
			strbuf_addf(ev->err, _("HEAD moved since evolve stopped at %s; "
					       "check it out again or use \"git evolve --abort\""),
				    repo_find_unique_abbrev(r, &onto_oid, DEFAULT_ABBREV));
		goto out;
	}

	if (action == EVOLVE_SKIP) {
		struct reset_head_opts opts = {
			.oid = &onto_oid,
			.flags = RESET_HEAD_HARD | RESET_HEAD_DETACH,
			.default_reflog_action = "evolve",
		};

		if (reset_head(r, &opts))
			goto out;
		strbuf_addf(done, "%s %s skip\n", oid_to_hex(&current_oid),
			    oid_to_hex(&current_oid));
		ret = 0;
		goto out;
	}

	if (repo_read_index(r) < 0 || unmerged_index(r->index)) {
		strbuf_addstr(ev->err, _("resolve the conflicts and mark them with "
					 "\"git add\" first"));
		goto out;
	}
	if (write_index_as_tree(&tree, r->index, r->index_file, 0, NULL)) {
		strbuf_addstr(ev->err, _("could not write the index as a tree"));
		goto out;
	}
	oidcpy(&ev->continued, &current_oid);
	ev->continued_onto = onto;
	if (oideq(&tree, get_commit_tree_oid(onto))) {
		strbuf_addf(done, "%s %s empty\n", oid_to_hex(&onto_oid),
			    oid_to_hex(&current_oid));
	} else {
		struct commit_list *parents = NULL;
		struct object_id new;
		int failed;

		commit_list_insert(onto, &parents);
		failed = evolve_commit_like(r, current, &tree, parents, &new);
		commit_list_free(parents);
		if (failed) {
			strbuf_addstr(ev->err, _("could not write the resolved commit"));
			goto out;
		}
		strbuf_addf(done, "%s %s\n", oid_to_hex(&new),
			    oid_to_hex(&current_oid));
		/* The index and work tree are that commit now. */
		if (refs_update_ref(get_main_ref_store(r), "evolve: continue",
				    "HEAD", &new, &onto_oid, REF_NO_DEREF,
				    UPDATE_REFS_MSG_ON_ERR))
			goto out;
	}
	ret = 0;
out:
	free(path);
	return ret;
}

/*
 * Resolving a divergence moves the changes of `item` before evolve may
 * stop: remember where they were, so that --abort puts them back.
 */
static void save_item_changes(struct evolver *ev, struct change_node *item)
{
	struct string_list_item *name;

	/* A remote version is not moved: nothing to put back. */
	if (!ev->saved_changes || item->remote)
		return;
	for_each_string_list_item(name, &item->refnames) {
		/* Where it is, not the remote version it catches up with. */
		struct change_head *head = change_table_get(&ev->graph.table,
							    name->string);

		if (head)
			strbuf_addf(ev->saved_changes, "%s %s\n",
				    oid_to_hex(&head->head), name->string);
	}
}

/*
 * The one change whose commit merges the two versions of `divergent` and
 * nothing else, or NULL if there is none, or more than one (which to use
 * would be a guess).
 */
static struct change_node *follow_up_merge(struct evolver *ev,
					   struct obsolete_commit *divergent)
{
	struct commit *a = divergent->newest->commit;
	struct commit *b = divergent->divergent->commit;
	struct change_node *found = NULL, *item;
	struct oidmap_iter iter;

	oidmap_iter_init(&ev->graph.items, &iter);
	while ((item = oidmap_iter_next(&iter))) {
		struct commit_list *parents;

		if (item->abandoned || item->superseded ||
		    repo_parse_commit(ev->repo, item->commit))
			continue;
		parents = item->commit->parents;
		if (commit_list_count(parents) != 2 ||
		    !((parents->item == a && parents->next->item == b) ||
		      (parents->item == b && parents->next->item == a)))
			continue;
		if (found)
			return NULL;
		found = item;
	}
	return found;
}

/*
 * Record that the commits of `rewrites` were rewritten or, in a dry run
 * (`dry_run` not NULL), that they would be.
 */
static int record_version_rewrites(struct repository *r,
				   struct dry_run *dry_run,
				   const struct commit_rewrite *rewrites,
				   size_t nr, const char *reason,
				   struct strbuf *err)
{
	if (dry_run)
		return preview_rewrites(dry_run->rec, rewrites, nr,
					REWRITE_MODIFY, reason,
					&dry_run->moved, err);
	return record_rewrites(r, rewrites, nr, REWRITE_MODIFY, reason, err);
}

/* Record that `merged` replaces both `a` and `b`, as above. */
static int record_merged_versions(struct repository *r,
				  struct dry_run *dry_run, struct commit *a,
				  struct commit *b,
				  const struct object_id *merged,
				  const char *reason, struct strbuf *err)
{
	struct commit_rewrite rewrites[2];

	oidcpy(&rewrites[0].old, &a->object.oid);
	oidcpy(&rewrites[0].new, merged);
	oidcpy(&rewrites[1].old, &b->object.oid);
	oidcpy(&rewrites[1].new, merged);
	return record_version_rewrites(r, dry_run, rewrites,
				       ARRAY_SIZE(rewrites), reason, err);
}

/*
 * The design's first transformation: the user already merged the
 * divergent versions in a follow-up change. Squash that merge into them:
 * a commit with the merge's tree, the parents of both versions and the
 * message of the merge's first parent replaces the two versions and the
 * merge (whose children then evolve onto it). Returns 0 if done, 1 if
 * there is no such merge, -1 on error.
 */
static int squash_follow_up_merge(struct evolver *ev,
				  struct obsolete_commit *divergent)
{
	struct repository *r = ev->repo;
	struct change_node *merge = follow_up_merge(ev, divergent);
	struct commit *a, *b;
	struct commit_list *parents = NULL;
	struct commit_rewrite rewrites[3];
	struct object_id squashed;
	int ret;

	if (!merge)
		return 1;
	a = merge->commit->parents->item;
	b = merge->commit->parents->next->item;
	evolve_merged_parents(a, b, &parents);
	ret = evolve_commit_like(r, a, get_commit_tree_oid(merge->commit),
				 parents, &squashed);
	commit_list_free(parents);
	if (ret) {
		strbuf_addstr(ev->err, _("could not write the squashed merge"));
		return -1;
	}

	oidcpy(&rewrites[0].old, &a->object.oid);
	oidcpy(&rewrites[1].old, &b->object.oid);
	oidcpy(&rewrites[2].old, &merge->commit->object.oid);
	save_item_changes(ev, divergent->newest);
	save_item_changes(ev, divergent->divergent);
	save_item_changes(ev, merge);
	for (size_t i = 0; i < ARRAY_SIZE(rewrites); i++)
		oidcpy(&rewrites[i].new, &squashed);
	if (record_version_rewrites(r, ev->dry_run, rewrites,
				    ARRAY_SIZE(rewrites),
				    "evolve (follow-up merge)", ev->err))
		return -1;
	add_step(ev, EVOLVE_STEP_SQUASH_MERGE, divergent->newest,
		 xstrdup(change_node_name(divergent->divergent)))->merge =
		xstrdup(change_node_name(merge));
	return 0;
}

/*
 * --auto-merge: merge the two versions of a divergent commit into one that
 * replaces both, as "git merge --amend" would, and record it. Returns 0 if
 * done, 1 if they conflict, -1 on error.
 */
static int auto_merge_versions(struct evolver *ev,
			       struct obsolete_commit *divergent)
{
	/* The local version is ours: the merge is made like it. */
	struct change_node *ours = divergent->newest->remote ?
		divergent->divergent : divergent->newest;
	struct change_node *theirs = ours == divergent->newest ?
		divergent->divergent : divergent->newest;
	struct object_id merged;
	int ret = evolve_merge_versions(ev->repo, ours->commit, theirs->commit,
					NULL, 0, &merged, ev->err);

	if (!ret) {
		save_item_changes(ev, ours);
		save_item_changes(ev, theirs);
	}
	if (!ret)
		ret = record_merged_versions(ev->repo, ev->dry_run,
					     ours->commit, theirs->commit,
					     &merged, "evolve --auto-merge",
					     ev->err);
	if (!ret)
		add_step(ev, EVOLVE_STEP_MERGE_DIVERGENT, ours,
			 xstrdup(change_node_name(theirs)));
	return ret;
}

/* Whether the two versions of `divergent` are the same version. */
static int same_versions(struct evolver *ev, struct obsolete_commit *divergent)
{
	return change_same_version(ev->repo, divergent->newest->commit,
				   divergent->divergent->commit);
}

/*
 * End a divergence that needs no merge: the other version joins `kept`,
 * whose commit then replaces both, so that pushing the change is a
 * fast-forward and nothing is rebased onto a new commit for nothing.
 * Returns 0, or -1.
 */
static int join_versions(struct evolver *ev, struct obsolete_commit *divergent,
			 struct change_node *kept)
{
	struct change_node *other = kept == divergent->newest ?
		divergent->divergent : divergent->newest;

	save_item_changes(ev, other);
	save_item_changes(ev, kept);
	if (record_merged_versions(ev->repo, ev->dry_run, other->commit,
				   kept->commit, &kept->commit->object.oid,
				   "evolve (join)", ev->err))
		return -1;
	add_step(ev, EVOLVE_STEP_JOIN, other,
		 xstrdup(change_node_name(kept)));
	return 0;
}

/*
 * Before the changes are evolved, end the divergences that need no merge
 * (join_versions()), and those that the enabled transformations can
 * end: a follow-up merge of the divergent versions
 * (opts->follow_up_merges), else merging them (opts->auto_merge). One
 * at a time, reloading the changes after each, until none is left or one
 * cannot be ended: evolve then stops on that one, as it would without
 * the transformations. The changes then follow the versions that replace
 * the divergent ones. Returns 0 with the changes loaded in `ev`, none of
 * them divergent in a way to end, for evolve to go on with; 1 with `ev`
 * released (evolve loads them again: the divergence left stops it); -1
 * on error.
 */
static int resolve_divergences(struct evolver *ev, struct repository *r,
			       const struct evolve_options *opts,
			       struct evolve_result *result,
			       struct strbuf *saved_changes,
			       struct dry_run *dry_run, struct strbuf *err)
{
	/* Each round ends a divergence; never try more than there were. */
	unsigned tries = 0, max_tries = 0;

	do {
		struct obsolete_commit *divergent;
		struct change_node *kept;
		int ret = 1;

		evolver_start(ev, r, opts, result, saved_changes, dry_run,
			      err);
		change_graph_load(&ev->graph);
		if (!max_tries)
			max_tries = oidmap_get_size(&ev->graph.obsolete);
		divergent = first_divergence_where(ev, DIVERGENCE_WITH_REMOTE,
						   same_versions);
		if (!divergent)
			divergent = first_divergence(ev, DIVERGENCE_WITH_REMOTE);
		if (divergent &&
		    (kept = change_graph_version_to_keep(&ev->graph, divergent))) {
			ret = join_versions(ev, divergent, kept);
		} else {
			/* Only a merge resolves a divergence from a remote. */
			divergent = first_divergence(ev, opts->auto_merge ?
						     DIVERGENCE_WITH_REMOTE :
						     DIVERGENCE_LOCAL);
			/* Loaded, with nothing to merge: evolve goes on. */
			if (!divergent)
				return 0;
		}
		if (ret > 0 && opts->follow_up_merges &&
		    !divergent->newest->remote && !divergent->divergent->remote)
			ret = squash_follow_up_merge(ev, divergent);
		if (ret > 0 && opts->auto_merge)
			ret = auto_merge_versions(ev, divergent);
		evolver_release(ev);
		if (ret > 0) {
			/* Reported as a divergence, with a word about why. */
			strbuf_reset(err);
			return 1;
		}
		if (ret < 0)
			return -1;
	} while (++tries < max_tries);
	return 1;
}

int evolve_changes(struct repository *r, const struct evolve_options *opts,
		   struct evolve_result *result, struct strbuf *err)
{
	struct evolver ev;
	struct strbuf done = STRBUF_INIT;
	struct strbuf saved_changes = STRBUF_INIT;
	struct dry_run dry_run = { 0 };
	struct dry_run *dry = opts->dry_run ? &dry_run : NULL;
	int loaded = 0, ret = 0;

	if (opts->action == EVOLVE_START && evolve_in_progress(r)) {
		strbuf_addstr(err, _("an evolve is in progress; use \"git evolve --continue\", "
				     "\"--skip\" or \"--abort\""));
		return -1;
	}
	if (opts->action != EVOLVE_START && !evolve_in_progress(r)) {
		strbuf_addstr(err, _("no evolve in progress"));
		return -1;
	}

	if (opts->dry_run) {
		/* What it writes is dropped once it has said what it would do. */
		odb_hold_writes(r->objects);
		dry_run.rec = start_change_preview(r);
		strmap_init(&dry_run.moved);
	}
	if (opts->action == EVOLVE_START) {
		ret = resolve_divergences(&ev, r, opts, result, &saved_changes,
					  dry, err);
		if (ret < 0)
			goto out;
		/* Loading every change costs most: do it once if we can. */
		loaded = !ret;
	}

	if (!loaded)
		evolver_start(&ev, r, opts, result, &saved_changes, dry, err);
	if (opts->action == EVOLVE_START) {
		struct string_list_item *upstream;

		for_each_string_list_item(upstream, &opts->upstreams)
			string_list_append(&ev.upstreams,
					   upstream->string)->util = upstream->util;
		read_head(&ev);
		ret = 0;
	} else {
		ev.resuming = 1;
		ret = read_stopped_head(&ev) ? -1 : 0;
		if (!ret)
			ret = resume(&ev, opts->action, &done);
	}
	if (!ret) {
		if (!loaded)
			change_graph_load(&ev.graph);
		if (!ev.resuming)
			add_catch_up_steps(&ev);
		seed_done(&ev, done.buf);
		ev.new_rewrites = ev.rewrites_nr;
		ret = evolve_in_memory(&ev);
	}
	if (!ret)
		ret = write_results(&ev);
	else if (ev.conflict_item && !opts->dry_run)
		ret = stop_on_conflict(&ev, done.buf);
	if (!ret && !opts->dry_run) {
		evolve_remove_state(r);
		forget_orphaned(r);
		forget_divergent(r);
	}

	if (ev.merging)
		merge_finalize(&ev.merge_opt, &ev.merge_result);
	free(ev.rewrites);
	free(ev.emptied);
	free(ev.head_branch);
	evolver_release(&ev);
out:
	if (opts->dry_run) {
		strmap_clear(&dry_run.moved, 0);
		finish_change_recording(dry_run.rec, 0);
		odb_discard_writes(r->objects);
	}
	strbuf_release(&done);
	strbuf_release(&saved_changes);
	return ret;
}

/* The changes that evolve moved before it stopped go back (see stop_on_conflict()). */
static int restore_moved_changes(struct repository *r, struct strbuf *err)
{
	char *dir = repo_git_path(r, EVOLVE_STATE_DIR);
	int ret = restore_saved_changes(r, dir, "evolve (abort)", err);

	free(dir);
	return ret;
}

int evolve_abort(struct repository *r, struct strbuf *err)
{
	struct evolver ev;
	struct reset_head_opts opts = {
		.flags = RESET_HEAD_HARD,
		.default_reflog_action = "evolve",
		.head_msg = "evolve: abort",
	};
	char *autostash;
	int ret;

	if (!evolve_in_progress(r)) {
		strbuf_addstr(err, _("no evolve in progress"));
		return -1;
	}
	evolver_init(&ev, r, err);
	ret = read_stopped_head(&ev);
	if (ret == -2) {
		evolver_release(&ev);
		return -1;
	}
	if (ret) {
		/*
		 * Interrupted while stopping, before HEAD moved (orig-head is
		 * written first): only the stash and the state are left.
		 */
		strbuf_reset(err);
		if (restore_moved_changes(r, err)) {
			evolver_release(&ev);
			return -1;
		}
		autostash = evolve_state_path(r, "autostash");
		apply_autostash(autostash);
		free(autostash);
		evolve_remove_state(r);
		evolver_release(&ev);
		return 0;
	}
	opts.oid = &ev.head_oid;
	opts.branch = ev.head_branch;
	if (!ev.head_branch)
		opts.flags |= RESET_HEAD_DETACH;
	ret = restore_moved_changes(r, err);
	if (!ret && (ret = reset_head(r, &opts)))
		strbuf_addstr(err, _("could not go back to where evolve started"));
	if (!ret) {
		autostash = evolve_state_path(r, "autostash");
		apply_autostash(autostash);
		free(autostash);
		evolve_remove_state(r);
	}
	free(ev.head_branch);
	evolver_release(&ev);
	return ret ? -1 : 0;
}

int evolve_resolve_upstreams(struct repository *r, const char **names, int nr,
			     struct string_list *upstreams, struct strbuf *err)
{
	for (int i = 0; i < nr; i++) {
		struct object_id oid;
		struct commit *upstream = NULL;

		/* One message for a name that is no commit, not two. */
		if (!repo_get_oid_committish(r, names[i], &oid))
			upstream = lookup_commit_reference_gently(r, &oid, 1);
		if (!upstream) {
			strbuf_addf(err, _("'%s' is not a valid commit"), names[i]);
			return -1;
		}
		if (is_metacommit(r, upstream)) {
			strbuf_addf(err, _("cannot use '%s' as an upstream: it is a "
					   "metacommit, which records how a change "
					   "evolved and has no files"),
				    names[i]);
			return -1;
		}
		string_list_append(upstreams, names[i])->util = upstream;
	}
	return 0;
}

/*
 * Move HEAD to `oid` as "git checkout" does (local modifications are kept
 * if they do not conflict): detached if `detach`, else through HEAD, so
 * that the branch it is on moves, from the value it has now.
 */
static int move_head(struct repository *r, const struct object_id *oid,
		     int detach, const char *action, struct strbuf *err)
{
	struct reset_head_opts opts = {
		.oid = oid,
		.flags = RESET_HEAD_RUN_POST_CHECKOUT_HOOK |
			 (detach ? RESET_HEAD_DETACH : 0),
		.default_reflog_action = action,
	};

	if (repo_read_index(r) < 0) {
		strbuf_addstr(err, _("could not read the index"));
		return -1;
	}
	if (reset_head(r, &opts)) {
		strbuf_addf(err, _("could not check out %s"),
			    repo_find_unique_abbrev(r, oid, DEFAULT_ABBREV));
		return -1;
	}
	return 0;
}

int evolve_move_head(struct repository *r, struct commit *to,
		     const char *action, struct strbuf *err)
{
	return move_head(r, &to->object.oid, 1, action, err);
}

int evolve_merge_amend(struct repository *r, struct commit *other,
		       const char *other_name, struct strbuf *err)
{
	struct commit *head = lookup_commit_reference_by_name("HEAD");
	struct object_id merged;
	int ret;

	if (!head) {
		strbuf_addstr(err, _("HEAD does not point to a commit"));
		return -1;
	}
	if (head == other) {
		strbuf_addstr(err, _("HEAD is already that change"));
		return -1;
	}
	if (repo_read_index(r) < 0 || refresh_index(r->index, REFRESH_QUIET,
						    NULL, NULL, NULL) ||
	    has_unstaged_changes(r, 1) || has_uncommitted_changes(r, 1)) {
		strbuf_addstr(err, _("commit or stash your local modifications first"));
		return -1;
	}

	ret = evolve_merge_versions(r, head, other, other_name, 1, &merged,
				    err);
	if (ret)
		return ret;
	if (record_merged_versions(r, NULL, head, other, &merged,
				   "merge --amend", err))
		return -1;
	return move_head(r, &merged, 0, "merge --amend", err);
}

/* Whether a command that HEAD must not move under is in progress. */
static int operation_in_progress(struct repository *r)
{
	struct wt_status_state state = { 0 };
	int busy;

	wt_status_get_state(r, &state, 0);
	busy = state.merge_in_progress || state.am_in_progress ||
	       state.rebase_in_progress || state.rebase_interactive_in_progress ||
	       state.cherry_pick_in_progress || state.revert_in_progress ||
	       evolve_in_progress(r);
	wt_status_state_free_buffers(&state);
	return busy;
}

int abandon_and_leave(struct repository *r, const struct object_id *commit,
		      struct string_list *changes, enum abandon_head *head,
		      struct strbuf *err)
{
	struct object_id head_oid;
	struct commit *abandoned;
	int ret;

	*head = ABANDON_HEAD_ELSEWHERE;
	ret = abandon_change(r, commit, changes, err);
	if (ret)
		return ret;
	if (refs_read_ref(get_main_ref_store(r), "HEAD", &head_oid) ||
	    !oideq(&head_oid, commit))
		return 0;
	abandoned = lookup_commit(r, commit);
	if (!abandoned || repo_parse_commit(r, abandoned) || !abandoned->parents) {
		*head = ABANDON_HEAD_ROOT;
		return 0;
	}
	if (operation_in_progress(r)) {
		*head = ABANDON_HEAD_BUSY;
		return 0;
	}
	*head = ABANDON_HEAD_MOVED;
	if (move_head(r, &abandoned->parents->item->object.oid, 0,
		      "change abandon", err)) {
		strbuf_reset(err);
		strbuf_addf(err, _("the change is abandoned, but HEAD could not "
				   "be moved to the parent of %s"),
			    repo_find_unique_abbrev(r, commit, DEFAULT_ABBREV));
		return -1;
	}
	return 0;
}

int forget_changes(struct repository *r, struct string_list *names,
		   int force, struct strbuf *err)
{
	struct change_table table;
	int ret = 0;

	change_table_init(&table);
	change_table_add_all_visible(&table, r);
	for (size_t i = 0; !force && i < names->nr; i++) {
		const struct string_list_item *name = &names->items[i];
		struct change_head *head = change_table_get(&table, name->string);
		struct string_list aliases = STRING_LIST_INIT_NODUP;
		struct string_list children = STRING_LIST_INIT_DUP;
		const struct string_list_item *alias;
		int kept = 0;

		if (!head)
			continue;
		/* Another name of the same change, not forgotten, keeps it. */
		change_table_refnames(&table, &aliases);
		for_each_string_list_item(alias, &aliases) {
			struct change_head *other = change_table_get(&table,
								     alias->string);

			if (strcmp(alias->string, name->string) &&
			    oideq(&other->head, &head->head) &&
			    !unsorted_string_list_has_string(names, alias->string))
				kept = 1;
		}
		if (!kept)
			evolve_children(r, lookup_commit(r, &head->content), &children);
		if (children.nr) {
			strbuf_addf(err, _("change '%s' has changes built on it "
					   "('%s'...); use --force to forget it "
					   "anyway"),
				    name->string + strlen("refs/"),
				    children.items[0].string + strlen("refs/"));
			ret = -1;
		}
		string_list_clear(&aliases, 0);
		string_list_clear(&children, 0);
		if (ret)
			break;
	}
	change_table_clear(&table);
	if (!ret)
		ret = delete_changes(r, names, "change forget", err);
	return ret;
}

/* The parents of the commits of the changes that are not abandoned. */
static void collect_built_on(struct evolver *ev, struct oidset *built_on)
{
	struct oidmap_iter iter;
	struct change_node *item;

	oidmap_iter_init(&ev->graph.items, &iter);
	while ((item = oidmap_iter_next(&iter))) {
		if (item->abandoned || repo_parse_commit(ev->repo, item->commit))
			continue;
		for (struct commit_list *p = item->commit->parents; p; p = p->next)
			oidset_insert(built_on, &p->item->object.oid);
	}
}

/*
 * Whether "git change prune" hides `item`, and why: it is in an upstream,
 * another change replaced it, or it is abandoned and nothing is built on
 * it (otherwise "git evolve" still needs it to move its children off it).
 */
static int prune_reason(struct evolver *ev, struct change_node *item,
			const struct oidset *built_on,
			const struct string_list *upstreams,
			struct pruned_change *out)
{
	struct string_list_item *upstream = upstream_containing(ev, item->commit);

	if (upstream) {
		/* ev->upstreams is a copy of `upstreams`: name the caller's. */
		out->reason = PRUNED_LANDED;
		out->upstream = upstreams->items[upstream - ev->upstreams.items].string;
	} else if (item->superseded) {
		out->reason = PRUNED_OBSOLETE;
	} else if (item->abandoned &&
		   !oidset_contains(built_on, &item->commit->object.oid)) {
		out->reason = PRUNED_ABANDONED;
	} else {
		return 0;
	}
	return 1;
}

int prune_changes(struct repository *r, const struct string_list *upstreams,
		  int dry_run, struct string_list *pruned, struct strbuf *err)
{
	struct evolver ev;
	struct follow_cb cb = { .ev = &ev };
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list none = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct oidset built_on = OIDSET_INIT;
	int ret = 0;

	evolver_init(&ev, r, err);
	for_each_string_list_item(name, upstreams)
		string_list_append(&ev.upstreams, name->string)->util = name->util;
	change_graph_load(&ev.graph);
	collect_built_on(&ev, &built_on);

	change_table_refnames(&ev.graph.table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev.graph.table,
							    name->string);
		struct change_node *item = oidmap_get(&ev.graph.items,
						      &head->content);
		struct pruned_change why = { 0 };

		if (!item || !prune_reason(&ev, item, &built_on, upstreams, &why))
			continue;
		oidcpy(&why.head, &head->head);
		string_list_append(pruned, name->string)->util =
			xmemdupz(&why, sizeof(why));
		add_hide_moves(&cb, name->string, &head->head, &head->head);
	}
	if (!dry_run && cb.moves_nr)
		ret = record_rewrites_and_move_refs(r, &none, NULL, 0, cb.moves,
						    cb.moves_nr, "change prune",
						    err);

	for (size_t i = 0; i < cb.moves_nr; i++)
		free((char *)cb.moves[i].refname);
	free(cb.moves);
	oidset_clear(&built_on);
	string_list_clear(&refnames, 0);
	evolver_release(&ev);
	return ret;
}
