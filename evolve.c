/*
 * The evolve engine and what reads the graph of versions: "git evolve"
 * (visit the changes in dependency order, rebase them in memory, move
 * what was rewritten in one transaction, stop and resume on a conflict),
 * resolving divergence (merge --amend, follow-up merges), next/prev,
 * the states "git change list" shows, obslog, prune and forget, the
 * obsolete finder of "log --decorate" and the merge base of versions.
 */
/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "evolve.h"
#include "abspath.h"
#include "advice.h"
#include "cache-tree.h"
#include "change-id.h"
#include "change-table.h"
#include "change-writer.h"
#include "commit.h"
#include "commit-graph.h"
#include "commit-reach.h"
#include "commit-slab.h"
#include "gettext.h"
#include "diff.h"
#include "dir.h"
#include "hex.h"
#include "khash.h"
#include "lockfile.h"
#include "merge-ort.h"
#include "object-name.h"
#include "odb.h"
#include "oidmap.h"
#include "oidset.h"
#include "patch-ids.h"
#include "path.h"
#include "prio-queue.h"
#include "progress.h"
#include "read-cache-ll.h"
#include "refs.h"
#include "remote.h"
#include "replay.h"
#include "revision.h"
#include "repository.h"
#include "trace2.h"
#include "tree.h"
#include "reset.h"
#include "sequencer.h"
#include "strbuf.h"
#include "strmap.h"
#include "strvec.h"
#include "wrapper.h"
#include "worktree.h"
#include "wt-status.h"

/* The content commit of one or more active changes (aliases). */
struct evolve_item {
	struct oidmap_entry entry;
	struct commit *commit;
	/* Refnames of the changes (util: their struct change_head). */
	struct string_list refnames;
	/* A commit carried along without a change: its abbreviated name. */
	char *carried;
	/* What the commit becomes: itself, its rebased version or a parent. */
	struct commit *result;
	enum { ITEM_PENDING, ITEM_VISITING, ITEM_DONE } state;
	unsigned abandoned:1,
		 /* result differs from commit */
		 changed:1,
		 emptied:1,
		 /* abandoned, and a child or ref moved off it */
		 dropped:1,
		 /* it replaces a commit that another change replaces too */
		 divergent:1,
		 /* another change replaces it: it is obsolete */
		 superseded:1,
		 /* it is in an upstream: its children go onto that */
		 landed:1,
		 /* on the stack of visit_deep(), waiting for its parents */
		 queued:1,
		 /*
		  * The newest version of a change fetched from a remote
		  * (refnames: its remote-tracking ref), which no local
		  * change holds: evolve builds on it, never rewrites it.
		  */
		 remote:1;
};

/*
 * A local change that is an earlier version of the change of the same
 * name fetched from a remote (someone amended it and shared that): evolve
 * takes the remote version as the newest one of the local change, moving
 * the local change there, as a fast-forward, before anything else. Or
 * one behind a commit fetched on a branch with its change id, which no
 * metacommit records yet (catch_up_by_id()): evolve records it as the
 * next version of the change.
 */
struct caught_up {
	/* The change as evolve treats it: at the remote version. */
	struct change_head head;
	/* Where the local change is. */
	struct object_id old;
	/* The remote change ("refs/remotes/origin/metas/x"), or NULL by id. */
	char *remote_refname;
	/* By id: the local change as it is, and how to name the commit. */
	struct change_head was;
	char *fetched_name;
};

/* A commit made obsolete by the change(s) whose content is `newest`. */
struct obsolete_commit {
	struct oidmap_entry entry;
	struct evolve_item *newest;
	/* How many versions of the commit came after it (at least 1). */
	unsigned behind;
	/* Another change that replaces it too, or NULL. */
	struct evolve_item *divergent;
};

struct evolver {
	struct repository *repo;
	const struct evolve_options *opts;
	struct change_table table;
	/* The changes fetched from remotes (see add_remote_versions()). */
	struct change_table remote_table;
	/* Local refname -> struct caught_up. */
	struct string_list caught_up;
	/* content commit -> struct evolve_item */
	struct oidmap items;
	/* obsolete commit -> struct obsolete_commit */
	struct oidmap obsolete;
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
	struct evolve_item **emptied;
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
	struct evolve_item *conflict_item;
	struct commit *conflict_onto;

	/*
	 * Carrying commits without a change (see carried_item()): commits
	 * known not to be carried, the date below which none is, and the
	 * published history they must stay out of.
	 */
	struct oidset not_carried;
	timestamp_t carry_horizon;
	struct commit **published;
	size_t published_nr, published_alloc;
	unsigned carry_ready:1;
};

/*
 * The state of a stopped evolve, in $GIT_DIR/evolve/:
 *
 *   head-name   the branch HEAD was on, or "detached"
 *   orig-head   the commit HEAD was at
 *   current     the commit whose rebase conflicted
 *   onto        the commit it was rebased onto, where HEAD now is
 *               (until the user commits the resolution on it)
 *   done        one line per change already evolved:
 *               "<result> <old>" (rebased), "<result> <old> empty"
 *               (became empty on <result>) or "<old> <old> skip"; the
 *               first object name of each line is kept by gc
 *   autostash   local modifications, stashed
 *   metas-before
 *               where the changes were that evolve moved before it
 *               stopped, resolving divergences (CHANGES_SAVED_FILE)
 */
#define EVOLVE_STATE_DIR "evolve"

static char *state_path(struct repository *r, const char *name)
{
	return repo_git_path(r, EVOLVE_STATE_DIR "/%s", name);
}

static int read_state_oid(struct repository *r, const char *name,
			  struct object_id *oid)
{
	char *path = state_path(r, name);
	struct strbuf buf = STRBUF_INIT;
	int ret = strbuf_read_file(&buf, path, 0) < 0 ||
		  get_oid_hex(buf.buf, oid) ? -1 : 0;

	strbuf_release(&buf);
	free(path);
	return ret;
}

static void write_state(struct repository *r, const char *name,
			const char *value)
{
	char *path = state_path(r, name);

	write_file(path, "%s", value);
	free(path);
}

int evolve_in_progress(struct repository *r)
{
	char *path = repo_git_path(r, EVOLVE_STATE_DIR);
	int ret = is_directory(path);

	free(path);
	return ret;
}

/*
 * What the content index says of `commit`, checked against the refs: the
 * first by name of the local changes whose commit it is goes in `refname`
 * and the value of its ref in `head` (each if not NULL), and `*moved` (if
 * not NULL) is set if a change it lists for `commit` is gone or holds
 * another commit now, which makes `commit` a candidate obsolete version.
 * Returns whether a change holds `commit`. This costs the same however
 * many changes there are; a change that only came by fetch or update-ref
 * is not found.
 */
static int indexed_change_of(struct repository *r,
			     struct content_index_cache *cache,
			     const struct object_id *commit,
			     struct strbuf *refname, struct object_id *head,
			     int *moved)
{
	struct string_list listed = STRING_LIST_INIT_DUP;
	struct string_list_item *name;
	int found = 0;

	if (moved)
		*moved = 0;
	content_index_listed(r, cache, commit, &listed);
	string_list_sort(&listed);
	for_each_string_list_item(name, &listed) {
		struct object_id value, content;

		if (refs_read_ref(get_main_ref_store(r), name->string,
				  &value)) {
			oidclr(&content, r->hash_algo);
		} else {
			oidcpy(&content, &value);
			peel_change_head(r, name->string, &content);
		}
		if (!oideq(&content, commit)) {
			if (moved)
				*moved = 1;
		} else if (!found) {
			if (refname)
				strbuf_addstr(refname, name->string);
			if (head)
				oidcpy(head, &value);
			found = 1;
		}
		if (found && (!moved || *moved))
			break;
	}
	string_list_clear(&listed, 0);
	return found;
}

/*
 * The change whose commit is `commit`, as users write it ("metas/foo"; the
 * first by name if several hold it), or else its abbreviated object name.
 */
static char *name_commit(struct repository *r, const struct object_id *commit)
{
	struct strbuf refname = STRBUF_INIT;

	if (indexed_change_of(r, NULL, commit, &refname, NULL, NULL)) {
		char *ret = xstrdup(refname.buf + strlen("refs/"));

		strbuf_release(&refname);
		return ret;
	}
	return xstrdup(repo_find_unique_abbrev(r, commit, DEFAULT_ABBREV));
}

/*
 * The commits rewritten by a command that left changes built on them, so
 * that "git status" can count those orphans without reading every change.
 * One object name per line, appended; evolve removes the file when it has
 * nothing left to rebase. Read back, it is untrusted: lines that are not
 * object names are skipped, and only the newest ORPHANED_MAX are read.
 */
#define ORPHANED_FILE "evolve-orphaned"
#define ORPHANED_MAX 64

/*
 * Append `lines` to the file `name` of the common directory, which the
 * worktrees (and others sharing the repository) append to too.
 */
static void append_common_file(struct repository *r, const char *name,
			       const struct strbuf *lines)
{
	char *path = repo_common_path(r, name);

	append_change_file(r, path, lines);
	free(path);
}

static void note_orphaned(struct repository *r, const struct oid_array *replaced)
{
	struct strbuf lines = STRBUF_INIT;

	for (size_t i = 0; i < replaced->nr; i++)
		strbuf_addf(&lines, "%s\n", oid_to_hex(&replaced->oid[i]));
	append_common_file(r, ORPHANED_FILE, &lines);
	strbuf_release(&lines);
}

static void read_orphaned(struct repository *r, struct oid_array *replaced)
{
	char *path = repo_common_path(r, ORPHANED_FILE);
	struct strbuf buf = STRBUF_INIT;
	const char *p;

	if (strbuf_read_file(&buf, path, 0) < 0) {
		if (errno != ENOENT)
			warning_errno(_("could not read '%s'"), path);
		goto out;
	}
	for (p = buf.buf; *p; ) {
		const char *eol = strchrnul(p, '\n');
		struct object_id oid;
		const char *end;

		if (!parse_oid_hex_algop(p, &oid, &end, r->hash_algo) &&
		    end == eol)
			oid_array_append(replaced, &oid);
		p = *eol ? eol + 1 : eol;
	}
	if (replaced->nr > ORPHANED_MAX) {
		size_t drop = replaced->nr - ORPHANED_MAX;

		MOVE_ARRAY(replaced->oid, replaced->oid + drop, ORPHANED_MAX);
		replaced->nr = ORPHANED_MAX;
	}
out:
	strbuf_release(&buf);
	free(path);
}

/* After a complete evolve: forget the orphaned commits with none left. */
static void forget_orphaned(struct repository *r)
{
	struct oid_array replaced = OID_ARRAY_INIT;
	char *path;

	read_orphaned(r, &replaced);
	if (replaced.nr && !evolve_count_orphans_above(r, &replaced)) {
		path = repo_common_path(r, ORPHANED_FILE);
		if (unlink(path) && errno != ENOENT)
			warning_errno(_("could not remove '%s'"), path);
		free(path);
	}
	oid_array_clear(&replaced);
}

static int collect_tip(const struct reference *ref, void *cb_data)
{
	if (!(ref->flags & REF_ISSYMREF))
		oid_array_append(cb_data, ref->oid);
	return 0;
}

/* What the walk above rewritten commits knows of a commit it reached. */
struct above_walk_node {
	/* Its children among the commits reached. */
	struct commit_list *children;
	unsigned reached:1,
		 above:1,
		 bottom:1;
};

define_commit_slab(above_walk_slab, struct above_walk_node);

/*
 * How far down from the tips the walk above `bottoms` goes: a commit
 * built on one of them is younger. With generation numbers that is
 * exact; by commit date, with a day's slop for clocks that disagree,
 * as "git name-rev" does. Either way the walk costs the recent history
 * of the branches, not all of it.
 */
struct above_walk_cutoff {
	timestamp_t generation;
	timestamp_t date;
	int by_generation;
};

#define ABOVE_WALK_DATE_SLOP 86400

static void init_above_walk_cutoff(struct repository *r,
				   struct above_walk_cutoff *cutoff,
				   struct commit_list *bottoms)
{
	cutoff->by_generation = generation_numbers_enabled(r);
	cutoff->generation = GENERATION_NUMBER_INFINITY;
	cutoff->date = TIME_MAX;
	for (struct commit_list *b = bottoms; b; b = b->next) {
		timestamp_t generation = commit_graph_generation(b->item);

		if (generation == GENERATION_NUMBER_INFINITY)
			cutoff->by_generation = 0;
		if (generation < cutoff->generation)
			cutoff->generation = generation;
		if (b->item->date < cutoff->date)
			cutoff->date = b->item->date;
	}
	if (cutoff->date > TIME_MIN + ABOVE_WALK_DATE_SLOP)
		cutoff->date -= ABOVE_WALK_DATE_SLOP;
}

/* Whether `commit` is below the cutoff: the walk stops there. */
static int below_above_walk_cutoff(const struct above_walk_cutoff *cutoff,
				   struct commit *commit)
{
	if (cutoff->by_generation)
		return commit_graph_generation(commit) < cutoff->generation;
	return commit->date < cutoff->date;
}

/*
 * Walk down from `tips` to the cutoff, noting each commit's children,
 * then up from `bottoms` through them: the commits reached going up are
 * those built on a bottom that a tip holds (what "rev-list
 * --ancestry-path tips --not bottoms" lists), marked `above`. No
 * recursion: both walks keep their own queue. Every commit reached is
 * appended to `reached`; returns how many there are.
 */
static size_t walk_above(struct repository *r, struct above_walk_slab *slab,
		       struct commit_list *bottoms,
		       const struct oid_array *tips,
		       struct commit_list **reached)
{
	struct prio_queue queue = { .compare = compare_commits_by_commit_date };
	struct commit_list *up = NULL;
	struct above_walk_cutoff cutoff;
	size_t nr = 0;

	init_above_walk_cutoff(r, &cutoff, bottoms);
	for (size_t i = 0; i < tips->nr; i++) {
		struct commit *tip;
		struct above_walk_node *node;

		tip = lookup_commit_reference_gently(r, &tips->oid[i], 1);
		if (!tip || repo_parse_commit(r, tip))
			continue;
		node = above_walk_slab_at(slab, tip);
		if (node->reached)
			continue;
		node->reached = 1;
		commit_list_insert(tip, reached);
		nr++;
		prio_queue_put(&queue, tip);
	}
	for (struct commit_list *b = bottoms; b; b = b->next) {
		struct above_walk_node *node = above_walk_slab_at(slab, b->item);

		node->above = node->bottom = 1;
	}

	while (queue.nr) {
		struct commit *commit = prio_queue_get(&queue);

		if (above_walk_slab_at(slab, commit)->above ||
		    below_above_walk_cutoff(&cutoff, commit))
			continue;
		for (struct commit_list *p = commit->parents; p; p = p->next) {
			struct commit *parent = p->item;
			struct above_walk_node *node;

			if (repo_parse_commit(r, parent))
				continue;
			node = above_walk_slab_at(slab, parent);
			commit_list_insert(commit, &node->children);
			if (node->reached)
				continue;
			node->reached = 1;
			commit_list_insert(parent, reached);
			nr++;
			prio_queue_put(&queue, parent);
		}
	}
	clear_prio_queue(&queue);

	for (struct commit_list *b = bottoms; b; b = b->next)
		commit_list_insert(b->item, &up);
	while (up) {
		struct commit *commit = pop_commit(&up);
		struct commit_list *c;

		for (c = above_walk_slab_at(slab, commit)->children; c; c = c->next) {
			struct above_walk_node *node;

			node = above_walk_slab_at(slab, c->item);
			if (node->above)
				continue;
			node->above = 1;
			commit_list_insert(c->item, &up);
		}
	}
	return nr;
}

/*
 * evolve_count_orphans_above(), reading the index through `cache`. The
 * stacks are looked for on HEAD and the local branches: stacks that no
 * branch holds are not looked for, as that would mean reading every
 * change.
 */
static int count_orphans_above(struct repository *r,
			       struct content_index_cache *cache,
			       const struct oid_array *replaced)
{
	struct above_walk_slab slab;
	struct commit_list *bottoms = NULL, *reached = NULL;
	struct oid_array tips = OID_ARRAY_INIT;
	struct object_id head;
	int count = 0;

	for (size_t i = 0; i < replaced->nr; i++) {
		struct commit *c = lookup_commit_reference_gently(r, &replaced->oid[i], 1);

		if (c && !repo_parse_commit(r, c))
			commit_list_insert(c, &bottoms);
	}
	if (!bottoms)
		return 0;
	if (!refs_read_ref(get_main_ref_store(r), "HEAD", &head))
		oid_array_append(&tips, &head);
	refs_for_each_branch_ref(get_main_ref_store(r), collect_tip, &tips);

	init_above_walk_slab(&slab);
	/* What it cost, in commits: tests check that it stays small. */
	trace2_data_intmax("evolve", r, "orphans/reached",
			   walk_above(r, &slab, bottoms, &tips, &reached));
	for (struct commit_list *c = reached; c; c = c->next) {
		struct above_walk_node *node;

		node = above_walk_slab_at(&slab, c->item);
		if (node->above && !node->bottom &&
		    indexed_change_of(r, cache, &c->item->object.oid,
				      NULL, NULL, NULL))
			count++;
		commit_list_free(node->children);
	}
	clear_above_walk_slab(&slab);
	commit_list_free(reached);
	commit_list_free(bottoms);
	oid_array_clear(&tips);
	return count;
}

int evolve_count_orphans_above(struct repository *r,
			       const struct oid_array *replaced)
{
	struct content_index_cache cache = { 0 };
	int count = count_orphans_above(r, &cache, replaced);

	content_index_cache_release(&cache);
	return count;
}

int evolve_count_orphans(struct repository *r)
{
	struct oid_array replaced = OID_ARRAY_INIT;
	int count = 0;

	if (!repo_changes_enabled(r))
		return 0;
	read_orphaned(r, &replaced);
	if (replaced.nr)
		count = evolve_count_orphans_above(r, &replaced);
	oid_array_clear(&replaced);
	return count;
}

/* evolve_report_orphans(), reading the index through `cache`. */
static void report_orphans(struct repository *r,
			   struct content_index_cache *cache,
			   const struct oid_array *replaced)
{
	int count = count_orphans_above(r, cache, replaced);

	if (!count)
		return;
	note_orphaned(r, replaced);
	advise_if_enabled(ADVICE_EVOLVE_ORPHANS,
			  Q_("%d change is built on a commit you rewrote; run \"git evolve\" to rebase it.",
			     "%d changes are built on commits you rewrote; run \"git evolve\" to rebase them.",
			     count),
			  count);
}

void evolve_report_orphans(struct repository *r,
			   const struct oid_array *replaced)
{
	struct content_index_cache cache = { 0 };

	report_orphans(r, &cache, replaced);
	content_index_cache_release(&cache);
}

/*
 * Read the file `name` of the common directory into `buf`, split into
 * `lines`; returns the index of the first of the newest `max` lines
 * (the older ones are not read: the file is only appended to).
 */
static size_t read_noted_lines(struct repository *r, const char *name,
			       size_t max, struct strbuf *buf,
			       struct string_list *lines)
{
	char *path = repo_common_path(r, name);

	if (strbuf_read_file(buf, path, 0) < 0) {
		if (errno != ENOENT)
			warning_errno(_("could not read '%s'"), path);
	} else {
		string_list_split_in_place(lines, buf->buf, "\n", -1);
	}
	free(path);
	return lines->nr > max ? lines->nr - max : 0;
}

/*
 * The divergences a command made (an amend of a version that another
 * change had already replaced, a fetch of a version amended on both
 * sides), so that "git status" can count those still unresolved without
 * reading every change. One "<refname> <refname>" line per divergence,
 * the first a local change, or "<refname> <commit>" for a fetched commit
 * with the change id of that change; appended, and removed by evolve when
 * nothing is left to evolve. Read back, it is untrusted: lines that do
 * not name a change and a change or commit are skipped, only the newest
 * DIVERGENT_MAX are read, and the refs are only read.
 */
#define DIVERGENT_FILE "evolve-divergent"
#define DIVERGENT_MAX 64

static void note_divergent(struct repository *r, const char *local,
			   const char *other)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "%s %s\n", local, other);
	append_common_file(r, DIVERGENT_FILE, &line);
	strbuf_release(&line);
}

/* Whether two histories of a change share a version. */
static int histories_meet(const struct oidset *history,
			  const struct oidset *other_history)
{
	struct oidset_iter iter;
	const struct object_id *version;

	oidset_iter_init(history, &iter);
	while ((version = oidset_iter_next(&iter)))
		if (oidset_contains(other_history, version))
			return 1;
	return 0;
}

/*
 * Whether two versions of a change, the metacommits `a` and `b` whose
 * histories (change_history_add()) are given, diverge: neither holds a
 * version of the other's history or the other's head (as after a merge
 * --amend, which replaces both), and their histories share a version
 * that both replaced.
 */
static int versions_diverge(const struct object_id *a,
			    const struct oidset *history_a,
			    const struct object_id *b,
			    const struct oidset *history_b)
{
	return !oideq(a, b) &&
		!oidset_contains(history_a, b) &&
		!oidset_contains(history_b, a) &&
		histories_meet(history_a, history_b);
}

/*
 * Whether the changes `a` and `b` (refnames) both exist and diverge
 * (versions_diverge()). Costs the walks of their two histories.
 */
static int changes_diverge(struct repository *r, const char *a, const char *b)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct oidset history_a = OIDSET_INIT, history_b = OIDSET_INIT;
	struct object_id head_a, head_b;
	int diverge = 0;

	if (refs_read_ref(refs, a, &head_a) || refs_read_ref(refs, b, &head_b) ||
	    oideq(&head_a, &head_b))
		return 0;
	change_history_add(r, &head_a, &history_a);
	change_history_add(r, &head_b, &history_b);
	diverge = versions_diverge(&head_a, &history_a, &head_b, &history_b);
	oidset_clear(&history_a);
	oidset_clear(&history_b);
	return diverge;
}

/*
 * Whether the fetched commit `fetched`, which has the change id of the
 * local change `local` (whose commit is `content`), diverges from it:
 * it is not that commit, not an earlier version of the change, not
 * built on it (as a commit that has its id by mistake would be), and
 * not a version that a fetched change (`fetched_versions`) already
 * says how it relates to the user's.
 */
static int fetched_version_diverges(struct repository *r, const char *local,
				    const struct object_id *content,
				    struct commit *fetched,
				    const struct oidset *fetched_versions)
{
	struct oidset ours = OIDSET_INIT;
	struct object_id head;
	struct commit *commit;
	int diverges = 0;

	if (oideq(content, &fetched->object.oid) ||
	    oidset_contains(fetched_versions, &fetched->object.oid) ||
	    refs_read_ref(get_main_ref_store(r), local, &head))
		return 0;
	change_history_add(r, &head, &ours);
	commit = lookup_commit_reference_gently(r, content, 1);
	diverges = commit && !oidset_contains(&ours, &fetched->object.oid) &&
		   repo_in_merge_bases(r, commit, fetched) == 0;
	oidset_clear(&ours);
	return diverges;
}

/*
 * Whether the commit `fetched`, noted by a fetch as a version of the
 * change `local` by its change id, still diverges from it: both still
 * have the same id, and neither replaced the other since.
 */
static int fetched_id_diverges(struct repository *r, const char *local,
			       const struct object_id *fetched)
{
	struct oidset none = OIDSET_INIT;
	struct strbuf ours = STRBUF_INIT, theirs = STRBUF_INIT;
	struct commit *commit = NULL;
	struct commit *content_commit;
	struct object_id content;
	int diverges = 0;

	/* Read back from a file: never fetch it in a partial clone. */
	if (odb_has_object(r->objects, fetched, 0))
		commit = lookup_commit_reference_gently(r, fetched, 1);
	if (!commit || refs_read_ref(get_main_ref_store(r), local, &content))
		goto out;
	peel_change_head(r, local, &content);
	content_commit = lookup_commit_reference_gently(r, &content, 1);
	diverges = content_commit &&
		   commit_change_id(r, content_commit, &ours) &&
		   commit_change_id(r, commit, &theirs) &&
		   !strcmp(ours.buf, theirs.buf) &&
		   fetched_version_diverges(r, local, &content, commit, &none);
out:
	strbuf_release(&ours);
	strbuf_release(&theirs);
	return diverges;
}

/*
 * The commits a fetch brought on a branch that are newer versions of a
 * change by its change id, which no metacommit records: the branch had
 * the change's commit (or a newer version noted before) and moved to a
 * commit with its id, as when a collaborator amends it with Jujutsu or
 * an unpatched Git. One "<refname> <commit> <head>" line each, appended:
 * the local change, the fetched commit, and the head the change had
 * then. Evolve takes the newest noted for a change still at that head
 * (catch_up_by_id()); once the change moves, its lines are stale. Read
 * back, lines are untrusted: only the newest NEWER_MAX are read, those
 * that do not parse are skipped, and the callers check the rest.
 */
#define NEWER_FILE "evolve-newer"
#define NEWER_MAX 64

/* A line of NEWER_FILE. */
struct newer_version {
	struct object_id fetched;
	struct object_id head;
};

static void note_newer(struct repository *r, const char *local,
		       const struct object_id *fetched,
		       const struct object_id *head)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "%s %s", local, oid_to_hex(fetched));
	strbuf_addf(&line, " %s\n", oid_to_hex(head));
	append_common_file(r, NEWER_FILE, &line);
	strbuf_release(&line);
}

/*
 * Read NEWER_FILE into `out`: one item per change refname, the newest
 * line of it, its util a struct newer_version (freed by clearing `out`
 * with free_util).
 */
static void read_newer(struct repository *r, struct string_list *out)
{
	struct strbuf buf = STRBUF_INIT;
	struct string_list lines = STRING_LIST_INIT_NODUP;
	size_t first = read_noted_lines(r, NEWER_FILE, NEWER_MAX, &buf, &lines);

	for (size_t i = first; i < lines.nr; i++) {
		char *refname = lines.items[i].string;
		char *rest = strchr(refname, ' ');
		struct newer_version version;
		struct string_list_item *item;
		const char *end;

		if (!rest)
			continue;
		*rest++ = '\0';
		if (!starts_with(refname, CHANGES_REF_PREFIX) ||
		    check_refname_format(refname, 0) ||
		    parse_oid_hex_algop(rest, &version.fetched, &end,
					r->hash_algo) || *end != ' ' ||
		    parse_oid_hex_algop(end + 1, &version.head, &end,
					r->hash_algo) || *end)
			continue;
		item = string_list_insert(out, refname);
		if (!item->util)
			item->util = xmalloc(sizeof(version));
		memcpy(item->util, &version, sizeof(version));
	}
	string_list_clear(&lines, 0);
	strbuf_release(&buf);
}

/*
 * The commit noted newer than the local change `local` (at `head`) that
 * still is: the change has not moved since, and the commit still has
 * the change id of its commit without replacing it or being replaced by
 * it. Returns it, or NULL.
 */
static const struct object_id *still_newer(struct repository *r,
					   struct string_list *noted,
					   const char *local,
					   const struct object_id *head)
{
	struct string_list_item *item = string_list_lookup(noted, local);
	struct newer_version *version = item ? item->util : NULL;

	if (!version || !oideq(&version->head, head) ||
	    !fetched_id_diverges(r, local, &version->fetched))
		return NULL;
	return &version->fetched;
}

/*
 * A change amended here after a fetch noted a newer commit of it by its
 * id (NEWER_FILE) diverges from that commit, while the commit still has
 * its id: both were made from the version the change had then. Add such
 * changes to `divergent`.
 */
static void add_amended_since_newer(struct repository *r,
				    struct string_list *divergent)
{
	struct string_list noted = STRING_LIST_INIT_DUP;
	struct string_list_item *entry;

	read_newer(r, &noted);
	for_each_string_list_item(entry, &noted) {
		struct newer_version *version = entry->util;
		struct object_id head;

		if (!refs_read_ref(get_main_ref_store(r), entry->string,
				   &head) &&
		    !oideq(&head, &version->head) &&
		    fetched_id_diverges(r, entry->string, &version->fetched))
			string_list_insert(divergent, entry->string);
	}
	string_list_clear(&noted, 1);
}

/*
 * The local changes that the divergences noted (DIVERGENT_FILE,
 * NEWER_FILE) still leave divergent, into the sorted `divergent`.
 */
static void noted_divergent(struct repository *r,
			    struct string_list *divergent)
{
	struct strbuf buf = STRBUF_INIT;
	struct string_list lines = STRING_LIST_INIT_NODUP;
	struct strset pairs = STRSET_INIT;
	struct object_id fetched;
	const char *end;
	size_t first = read_noted_lines(r, DIVERGENT_FILE, DIVERGENT_MAX, &buf,
					&lines);

	for (size_t i = first; i < lines.nr; i++) {
		char *local = lines.items[i].string;
		char *other = strchr(local, ' ');

		/* A pair noted twice (amended, then fetched) is walked once. */
		if (!other || !strset_add(&pairs, local))
			continue;
		*other++ = '\0';
		if (!starts_with(local, CHANGES_REF_PREFIX) ||
		    check_refname_format(local, 0))
			continue;
		if (!parse_oid_hex_algop(other, &fetched, &end, r->hash_algo) &&
		    !*end) {
			if (fetched_id_diverges(r, local, &fetched))
				string_list_insert(divergent, local);
			continue;
		}
		if (!is_change_refname(other) || check_refname_format(other, 0))
			continue;
		if (changes_diverge(r, local, other)) {
			string_list_insert(divergent, local);
			if (starts_with(other, CHANGES_REF_PREFIX))
				string_list_insert(divergent, other);
		}
	}
	add_amended_since_newer(r, divergent);
	strset_clear(&pairs);
	string_list_clear(&lines, 0);
	strbuf_release(&buf);
}

int evolve_count_divergent(struct repository *r)
{
	struct string_list divergent = STRING_LIST_INIT_DUP;
	int count;

	if (!repo_changes_enabled(r))
		return 0;
	noted_divergent(r, &divergent);
	count = divergent.nr;
	string_list_clear(&divergent, 0);
	return count;
}

/* After a complete evolve: forget the divergences if none is left. */
static void forget_divergent(struct repository *r)
{
	char *path;

	if (evolve_count_divergent(r))
		return;
	path = repo_common_path(r, DIVERGENT_FILE);
	if (unlink(path) && errno != ENOENT)
		warning_errno(_("could not remove '%s'"), path);
	free(path);
	/* What evolve could take, it took: the rest is stale. */
	path = repo_common_path(r, NEWER_FILE);
	if (unlink(path) && errno != ENOENT)
		warning_errno(_("could not remove '%s'"), path);
	free(path);
}

/*
 * After `old` was replaced by `new`: if a change that held `old` had
 * already moved on from it (the user amended an earlier version again),
 * the change of `new` and that one diverge. Remember it for
 * evolve_count_divergent() and return 1, appending the names of the
 * two changes to `ours` and `theirs` unless they are NULL.
 */
static int find_divergence_from(struct repository *r,
				struct content_index_cache *cache,
				const struct object_id *old,
				const struct object_id *new,
				struct strbuf *ours, struct strbuf *theirs)
{
	struct string_list listed = STRING_LIST_INIT_DUP;
	struct strbuf holder = STRBUF_INIT;
	struct string_list_item *item;
	int found = 0;

	if (!indexed_change_of(r, cache, new, &holder, NULL, NULL))
		goto out;
	/*
	 * The changes that held `old` and moved on replaced it too (the
	 * index lists only refnames under refs/metas/).
	 */
	content_index_listed(r, cache, old, &listed);
	for_each_string_list_item(item, &listed) {
		if (!strcmp(item->string, holder.buf) ||
		    !changes_diverge(r, holder.buf, item->string))
			continue;
		note_divergent(r, holder.buf, item->string);
		if (ours) {
			strbuf_addstr(ours, holder.buf + strlen("refs/"));
			strbuf_addstr(theirs, item->string + strlen("refs/"));
		}
		found = 1;
		break;
	}
out:
	string_list_clear(&listed, 0);
	strbuf_release(&holder);
	return found;
}

/*
 * One hint however many rewrites diverge (a rebase of an old version of
 * a stack diverges once per change): the pair to merge when there is
 * one, how many and the first pair as an example otherwise.
 */
static void advise_divergence(size_t nr, const char *ours, const char *theirs)
{
	if (nr == 1)
		advise_if_enabled(ADVICE_EVOLVE_DIVERGENCE,
				  _("%s and %s were both amended from one version (divergence); merge them with\n"
				    "  git checkout %s && git merge --amend %s"),
				  ours, theirs, ours, theirs);
	else if (nr > 1)
		advise_if_enabled(ADVICE_EVOLVE_DIVERGENCE,
				  Q_("%"PRIuMAX" change you rewrote was also amended from the same version elsewhere (divergence);\n"
				     "\"git change list -v\" marks it. Merge each pair, the first with\n"
				     "  git checkout %s && git merge --amend %s",
				     "%"PRIuMAX" changes you rewrote were also amended from the same versions elsewhere (divergence);\n"
				     "\"git change list -v\" marks them. Merge each pair, the first with\n"
				     "  git checkout %s && git merge --amend %s",
				     nr),
				  (uintmax_t)nr, ours, theirs);
}

void evolve_report_rewrites(struct repository *r,
			    const struct commit_rewrite *rewrites, size_t nr)
{
	struct content_index_cache cache = { 0 };
	struct oid_array replaced = OID_ARRAY_INIT;
	struct strbuf ours = STRBUF_INIT, theirs = STRBUF_INIT;
	size_t diverging = 0;

	if (!repo_changes_enabled(r))
		return;
	for (size_t i = 0; i < nr; i++)
		oid_array_append(&replaced, &rewrites[i].old);
	report_orphans(r, &cache, &replaced);
	for (size_t i = 0; i < nr; i++) {
		if (is_null_oid(&rewrites[i].new))
			continue;
		/* The first pair goes in the hint. */
		if (find_divergence_from(r, &cache, &rewrites[i].old,
					 &rewrites[i].new,
					 diverging ? NULL : &ours,
					 diverging ? NULL : &theirs))
			diverging++;
	}
	advise_divergence(diverging, ours.buf, theirs.buf);
	strbuf_release(&ours);
	strbuf_release(&theirs);
	oid_array_clear(&replaced);
	content_index_cache_release(&cache);
}

/*
 * Compare the local change called `name`, if any, with `fetched`, the
 * version just fetched into `remote` (whose history is `history`), and
 * say what evolve will do about it. Returns the commit of a local change
 * that is behind, whose children become orphans, in `behind`.
 */
static int report_fetched_version(struct repository *r, const char *name,
				  const char *remote_refname,
				  const struct object_id *fetched,
				  const struct oidset *history,
				  struct object_id *behind, int quiet)
{
	const char *remote = remote_refname + strlen("refs/remotes/");
	struct strbuf local = STRBUF_INIT;
	struct object_id head;
	int ret = 0;

	strbuf_addf(&local, "%s%s", CHANGES_REF_PREFIX, name);
	if (refs_read_ref(get_main_ref_store(r), local.buf, &head) ||
	    oideq(&head, fetched))
		goto out;
	if (oidset_contains(history, &head)) {
		if (!quiet)
			advise_if_enabled(ADVICE_EVOLVE_ORPHANS,
					  _("metas/%s is behind %s, which amends it; run \"git evolve\" to take that version."),
					  name, remote);
		oidcpy(behind, &head);
		peel_change_head(r, local.buf, behind);
		ret = 1;
	} else {
		struct oidset ours = OIDSET_INIT;

		change_history_add(r, &head, &ours);
		if (versions_diverge(&head, &ours, fetched, history)) {
			note_divergent(r, local.buf, remote_refname);
			if (!quiet)
				advise_if_enabled(ADVICE_EVOLVE_DIVERGENCE,
						  _("metas/%s and %s were both amended from one version (divergence); merge them with\n"
						    "  git checkout metas/%s && git merge --amend %s"),
						  name, remote, name, remote);
		}
		oidset_clear(&ours);
	}
out:
	strbuf_release(&local);
	return ret;
}

/* The walk being set up, and the refs the fetch moved. */
struct fetched_walk_data {
	struct rev_info *revs;
	struct strset *moved;
};

/* The refs the fetch did not move bound the walk (not the changes). */
static int hide_unmoved_ref(const struct reference *ref, void *cb_data)
{
	struct fetched_walk_data *data = cb_data;
	struct commit *commit;

	if (is_change_refname(ref->name) || strset_contains(data->moved, ref->name))
		return 0;
	commit = lookup_commit_reference_gently(data->revs->repo, ref->oid, 1);
	if (commit) {
		commit->object.flags |= UNINTERESTING;
		add_pending_object(data->revs, &commit->object, ref->name);
	}
	return 0;
}

/*
 * Start the walk `revs` of the commits the fetch brought on refs that
 * are not changes: from the new values of those `moves`, down to their
 * old values and to the branches and remote-tracking branches it did
 * not move. Returns 0 if there is something to walk.
 */
static int start_fetched_walk(struct repository *r, struct rev_info *revs,
			      const struct ref_move *moves, size_t nr)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct strset moved = STRSET_INIT;
	struct fetched_walk_data data = { .revs = revs, .moved = &moved };
	int interesting = 0;

	for (size_t i = 0; i < nr; i++) {
		struct commit *commit;

		if (is_change_refname(moves[i].refname))
			continue;
		strset_add(&moved, moves[i].refname);
		commit = is_null_oid(&moves[i].new) ? NULL :
			 lookup_commit_reference_gently(r, &moves[i].new, 1);
		if (commit) {
			add_pending_object(revs, &commit->object, moves[i].refname);
			interesting = 1;
		}
		commit = is_null_oid(&moves[i].old) ? NULL :
			 lookup_commit_reference_gently(r, &moves[i].old, 1);
		if (commit) {
			commit->object.flags |= UNINTERESTING;
			add_pending_object(revs, &commit->object, moves[i].refname);
		}
	}
	if (interesting) {
		struct refs_for_each_ref_options branches = {
			.prefix = "refs/heads/",
		};
		struct refs_for_each_ref_options remotes = {
			.prefix = "refs/remotes/",
		};

		refs_for_each_ref_ext(refs, hide_unmoved_ref, &data, &branches);
		refs_for_each_ref_ext(refs, hide_unmoved_ref, &data, &remotes);
	}
	strset_clear(&moved);
	if (!interesting || prepare_revision_walk(revs))
		return -1;
	return 0;
}

/*
 * Whether `commit` was on the branch before the fetch (`old`) and is
 * no longer (`new`): the branch replaced it.
 */
static int replaced_on_branch(struct repository *r, struct commit *commit,
			      struct commit *old, struct commit *new)
{
	return commit && repo_in_merge_bases(r, commit, old) > 0 &&
	       !repo_in_merge_bases(r, commit, new);
}

/*
 * Whether the fetch moved a branch to `fetched`, a commit with the
 * change id of the user's change whose commit is `content`, away from
 * that commit or from a commit noted newer than it before (`noted`, or
 * NULL): the branch had the user's version and replaced it, so
 * `fetched` was made from it, as a collaborator amending it without
 * recording a change makes one, and is newer. A branch that still has
 * the user's version (a merge of both) does not say that. Sets `via`
 * to the branch's refname.
 */
static int fetched_over_version(struct repository *r,
				const struct ref_move *moves, size_t nr,
				const struct object_id *content,
				const struct object_id *noted,
				struct commit *fetched, const char **via)
{
	struct commit *ours = lookup_commit_reference_gently(r, content, 1);
	struct commit *newer = noted ?
		lookup_commit_reference_gently(r, noted, 1) : NULL;

	for (size_t i = 0; ours && i < nr; i++) {
		struct commit *old, *new;

		if (is_change_refname(moves[i].refname) ||
		    is_null_oid(&moves[i].old) || is_null_oid(&moves[i].new))
			continue;
		old = lookup_commit_reference_gently(r, &moves[i].old, 1);
		new = lookup_commit_reference_gently(r, &moves[i].new, 1);
		if (!old || !new || repo_in_merge_bases(r, fetched, new) <= 0)
			continue;
		if (replaced_on_branch(r, ours, old, new) ||
		    replaced_on_branch(r, newer, old, new)) {
			*via = moves[i].refname;
			return 1;
		}
	}
	return 0;
}

/*
 * The fetched commit `fetched` has the change id of the local change
 * `local`, whose commit is `content`, and neither replaces it nor is
 * replaced by it. Say whether it is newer (fetched_over_version()),
 * appending the change's commit to `behind` (what is built on it needs
 * evolving), or divergent, and remember it for evolve or "git status".
 */
static void report_fetched_id(struct repository *r,
			      const struct ref_move *moves, size_t nr,
			      struct string_list *noted, const char *local,
			      const struct object_id *content,
			      struct commit *fetched, struct oid_array *behind,
			      int quiet)
{
	const char *name = local + strlen("refs/");
	const char *abbrev = repo_find_unique_abbrev(r, &fetched->object.oid,
						     DEFAULT_ABBREV);
	const struct object_id *newer;
	struct object_id head;
	const char *via;

	if (refs_read_ref(get_main_ref_store(r), local, &head))
		return;
	newer = still_newer(r, noted, local, &head);
	if (fetched_over_version(r, moves, nr, content, newer, fetched, &via)) {
		note_newer(r, local, &fetched->object.oid, &head);
		if (!oid_array_readonly_contains(behind, content))
			oid_array_append(behind, content);
		if (!skip_prefix(via, "refs/remotes/", &via))
			skip_prefix(via, "refs/", &via);
		if (!quiet)
			advise_if_enabled(ADVICE_EVOLVE_ORPHANS,
					  _("%s is behind %s, fetched into %s with its change id; run \"git evolve\" to take that version."),
					  name, abbrev, via);
		return;
	}
	note_divergent(r, local, oid_to_hex(&fetched->object.oid));
	if (!quiet)
		advise_if_enabled(ADVICE_EVOLVE_DIVERGENCE,
				  _("%s, fetched, has the change id of %s but neither replaces it nor is replaced by it (divergence).\n"
				    "If it landed upstream, \"git evolve <upstream>\" drops yours; otherwise merge them with\n"
				    "  git checkout %s && git merge --amend %s"),
				  abbrev, name, name, abbrev);
}

/*
 * After a fetch: the commits it brought on branches (not changes) that
 * carry the change id of one of the user's changes, and are versions of
 * it that neither replace it nor are replaced by it, as Jujutsu or
 * another clone without changes would make them: newer versions, when
 * the branch had the user's version, whose commits go in `behind`;
 * divergence otherwise, reported with what resolves it. Costs nothing
 * when no change ever had an id, otherwise the walk of the commits
 * fetched.
 */
static void report_fetched_ids(struct repository *r,
			       const struct ref_move *moves, size_t nr,
			       const struct oidset *fetched_versions,
			       struct oid_array *behind, int quiet)
{
	struct content_index_cache cache = { 0 };
	struct string_list noted = STRING_LIST_INIT_DUP;
	struct strbuf id = STRBUF_INIT;
	struct rev_info revs;
	struct commit *commit;
	int read_noted = 0;

	if (!change_ids_indexed(r))
		goto out;
	/*
	 * fetch-pack leaves its marks on the local tips (the bits of SEEN
	 * and UNINTERESTING): start clean, and leave nothing behind for
	 * the walks the fetch does next (the submodules').
	 */
	clear_object_flags(r, ALL_REV_FLAGS);
	repo_init_revisions(r, &revs, NULL);
	if (start_fetched_walk(r, &revs, moves, nr))
		goto walked;
	while ((commit = get_revision(&revs))) {
		struct string_list holders = STRING_LIST_INIT_DUP;
		struct string_list_item *holder;

		strbuf_reset(&id);
		if (commit_change_id(r, commit, &id))
			changes_with_id(r, &cache, id.buf, &holders);
		for_each_string_list_item(holder, &holders) {
			if (!fetched_version_diverges(r, holder->string,
						      holder->util, commit,
						      fetched_versions))
				continue;
			if (!read_noted++)
				read_newer(r, &noted);
			report_fetched_id(r, moves, nr, &noted, holder->string,
					  holder->util, commit, behind, quiet);
		}
		string_list_clear(&holders, 1);
	}
walked:
	release_revisions(&revs);
	clear_object_flags(r, ALL_REV_FLAGS);
out:
	string_list_clear(&noted, 1);
	content_index_cache_release(&cache);
	strbuf_release(&id);
}

void evolve_report_fetched(struct repository *r, const struct ref_move *moves,
			   size_t nr, int quiet)
{
	struct oid_array replaced = OID_ARRAY_INIT;
	struct oidset fetched_versions = OIDSET_INIT;
	int count;

	if (!repo_changes_enabled(r))
		return;
	for (size_t i = 0; i < nr; i++) {
		const char *name = remote_change_name(moves[i].refname);
		struct oidset history = OIDSET_INIT;
		struct object_id commit;

		if (!name || is_null_oid(&moves[i].new))
			continue;
		change_history_add(r, &moves[i].new, &history);
		oidset_insert_from_set(&fetched_versions, &history);
		oidcpy(&commit, &moves[i].new);
		peel_change_head(r, moves[i].refname, &commit);
		oidset_insert(&fetched_versions, &commit);
		/* The version fetched before, amended since. */
		oidcpy(&commit, &moves[i].old);
		if (!is_null_oid(&commit) && oidset_contains(&history, &commit)) {
			peel_change_head(r, moves[i].refname, &commit);
			oid_array_append(&replaced, &commit);
		}
		if (report_fetched_version(r, name, moves[i].refname,
					   &moves[i].new, &history, &commit,
					   quiet) &&
		    !oid_array_readonly_contains(&replaced, &commit))
			oid_array_append(&replaced, &commit);
		oidset_clear(&history);
	}
	report_fetched_ids(r, moves, nr, &fetched_versions, &replaced, quiet);
	count = replaced.nr ? evolve_count_orphans_above(r, &replaced) : 0;
	if (count) {
		note_orphaned(r, &replaced);
		if (!quiet)
			advise_if_enabled(ADVICE_EVOLVE_ORPHANS,
					  Q_("%d change is built on a version that was amended since; run \"git evolve\" to rebase it.",
					     "%d changes are built on versions that were amended since; run \"git evolve\" to rebase them.",
					     count),
					  count);
	}
	oidset_clear(&fetched_versions);
	oid_array_clear(&replaced);
}

int evolve_describe_stop(struct repository *r, char **current, char **onto)
{
	struct object_id oid;

	*current = *onto = NULL;
	if (!evolve_in_progress(r))
		return 0;
	if (!read_state_oid(r, "current", &oid))
		*current = name_commit(r, &oid);
	if (!read_state_oid(r, "onto", &oid))
		*onto = xstrdup(repo_find_unique_abbrev(r, &oid, DEFAULT_ABBREV));
	return 1;
}

/* Whether `commit` is one commit made on `onto` (see evolve_takes_commit()). */
static int made_on(struct repository *r, struct commit *commit,
		   const struct object_id *onto)
{
	return commit && !repo_parse_commit(r, commit) && commit->parents &&
	       !commit->parents->next &&
	       oideq(&commit->parents->item->object.oid, onto);
}

int evolve_takes_commit(struct repository *r, const struct object_id *commit)
{
	struct object_id onto;

	return !read_state_oid(r, "onto", &onto) &&
	       made_on(r, lookup_commit_reference_gently(r, commit, 1), &onto);
}

int evolve_stopped_onto(struct repository *r, const struct object_id *onto,
			struct object_id *current)
{
	struct object_id stopped_onto;

	return !read_state_oid(r, "onto", &stopped_onto) &&
	       oideq(&stopped_onto, onto) &&
	       !read_state_oid(r, "current", current);
}

static void remove_state(struct repository *r)
{
	struct strbuf path = STRBUF_INIT;

	repo_git_path_replace(r, &path, EVOLVE_STATE_DIR);
	remove_dir_recursively(&path, 0);
	strbuf_release(&path);
}

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

static void free_item(void *p)
{
	struct evolve_item *item = p;

	string_list_clear(&item->refnames, 0);
	free(item->carried);
	free(item);
}

static struct evolve_item *get_item(struct evolver *ev,
				    const struct object_id *content)
{
	struct evolve_item *item = oidmap_get(&ev->items, content);

	if (!item) {
		CALLOC_ARRAY(item, 1);
		oidcpy(&item->entry.oid, content);
		item->commit = lookup_commit(ev->repo, content);
		string_list_init_dup(&item->refnames);
		oidmap_put(&ev->items, item);
	}
	return item;
}

/*
 * The head of the local change `refname` as evolve treats it: where it
 * is, or the remote version it catches up with.
 */
static struct change_head *local_head(struct evolver *ev, const char *refname)
{
	struct string_list_item *caught_up =
		string_list_lookup(&ev->caught_up, refname);

	if (caught_up)
		return &((struct caught_up *)caught_up->util)->head;
	return change_table_get(&ev->table, refname);
}

/* The change `refname` if it is caught up by id (catch_up_by_id()). */
static struct caught_up *caught_up_by_id(struct evolver *ev,
					 const char *refname)
{
	struct string_list_item *entry =
		string_list_lookup(&ev->caught_up, refname);
	struct caught_up *caught_up = entry ? entry->util : NULL;

	return caught_up && !caught_up->remote_refname ? caught_up : NULL;
}

/*
 * Find the local changes that are behind the remote change of the same
 * name: the local head is in the history of the remote one. Each
 * remote-tracking ref of that name is tried in turn, so a change follows
 * the newest of them when one remote's version descends from another's.
 */
static void catch_up_with_remotes(struct evolver *ev)
{
	struct string_list remote_refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct strbuf local = STRBUF_INIT;

	change_table_refnames(&ev->remote_table, &remote_refnames);
	for_each_string_list_item(name, &remote_refnames) {
		struct change_head *remote =
			change_table_get(&ev->remote_table, name->string);
		struct change_head *head;
		struct oidset history = OIDSET_INIT;
		struct string_list_item *entry;
		struct caught_up *caught_up;

		strbuf_reset(&local);
		strbuf_addf(&local, "%s%s", CHANGES_REF_PREFIX,
			    remote_change_name(name->string));
		head = local_head(ev, local.buf);
		/* What the user abandoned stays abandoned. */
		if (!remote || remote->abandoned || !head || head->abandoned ||
		    oideq(&head->head, &remote->head))
			continue;
		change_history_add(ev->repo, &remote->head, &history);
		if (oidset_contains(&history, &head->head)) {
			entry = string_list_insert(&ev->caught_up, local.buf);
			if (!entry->util) {
				CALLOC_ARRAY(caught_up, 1);
				oidcpy(&caught_up->old, &head->head);
				entry->util = caught_up;
			}
			caught_up = entry->util;
			caught_up->head = *remote;
			caught_up->head.remote = 0;
			free(caught_up->remote_refname);
			caught_up->remote_refname = xstrdup(name->string);
		}
		oidset_clear(&history);
	}
	string_list_clear(&remote_refnames, 0);
	strbuf_release(&local);
}

/*
 * Find the local changes behind a commit that a fetch noted as newer by
 * its change id (NEWER_FILE), and take that commit as the change's
 * newest version, as catch_up_with_remotes() takes a remote one: what
 * is built on the change's commit goes onto it, and write_results()
 * records it as a version of the change. A newer remote version wins.
 */
static void catch_up_by_id(struct evolver *ev)
{
	struct string_list noted = STRING_LIST_INIT_DUP;
	struct string_list_item *entry;

	read_newer(ev->repo, &noted);
	for_each_string_list_item(entry, &noted) {
		struct change_head *head = change_table_get(&ev->table,
							    entry->string);
		const struct object_id *fetched;
		struct caught_up *caught_up;

		if (!head || head->hidden || head->remote || head->abandoned ||
		    string_list_lookup(&ev->caught_up, entry->string) ||
		    !(fetched = still_newer(ev->repo, &noted, entry->string,
					    &head->head)))
			continue;
		CALLOC_ARRAY(caught_up, 1);
		caught_up->was = *head;
		oidcpy(&caught_up->old, &head->head);
		caught_up->head = *head;
		oidcpy(&caught_up->head.content, fetched);
		caught_up->fetched_name =
			xstrdup(repo_find_unique_abbrev(ev->repo, fetched,
							DEFAULT_ABBREV));
		string_list_insert(&ev->caught_up, entry->string)->util =
			caught_up;
	}
	string_list_clear(&noted, 1);
}

static void load_items(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_DUP;
	struct string_list_item *name;

	change_table_add_all_visible(&ev->table, ev->repo);
	change_table_add_kinds(&ev->remote_table, ev->repo, CHANGE_KIND_REMOTE);
	catch_up_with_remotes(ev);
	catch_up_by_id(ev);
	change_table_refnames(&ev->table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = local_head(ev, name->string);
		struct evolve_item *item;

		if (!head || head->hidden || head->remote)
			continue;
		item = get_item(ev, &head->content);
		string_list_append(&item->refnames, name->string)->util = head;
		if (head->abandoned)
			item->abandoned = 1;
	}
	string_list_clear(&refnames, 0);
}

static void mark_obsolete(struct evolver *ev, const struct object_id *oid,
			  struct evolve_item *newest, unsigned behind)
{
	struct obsolete_commit *obsolete;
	struct evolve_item *item = oidmap_get(&ev->items, oid);

	/*
	 * The content of any change is never obsolete: nothing based on it
	 * is an orphan. But the change itself is stale, and may be pruned.
	 */
	if (item) {
		if (item != newest)
			item->superseded = 1;
		return;
	}
	obsolete = oidmap_get(&ev->obsolete, oid);
	if (!obsolete) {
		obsolete = xcalloc(1, sizeof(*obsolete));
		oidcpy(&obsolete->entry.oid, oid);
		obsolete->newest = newest;
		obsolete->behind = behind;
		oidmap_put(&ev->obsolete, obsolete);
	} else if (obsolete->newest != newest && !obsolete->divergent) {
		obsolete->divergent = newest;
	} else if (obsolete->newest == newest && behind < obsolete->behind) {
		obsolete->behind = behind;
	}
}

/*
 * Mark as obsolete every commit reachable from the head of a change of
 * `item` through "replaces" edges.
 */
static void mark_history_obsolete(struct evolver *ev, struct evolve_item *item,
				  const struct change_head *head)
{
	/* Metacommits to look at, and how far each is from the head. */
	struct oid_array queue = OID_ARRAY_INIT;
	unsigned *depth = NULL;
	size_t depth_alloc = 0;
	struct oidset seen = OIDSET_INIT;
	struct strbuf err = STRBUF_INIT;

	if (!oideq(&head->head, &head->content)) {
		oid_array_append(&queue, &head->head);
		ALLOC_GROW(depth, queue.nr, depth_alloc);
		depth[0] = 0;
	}
	while (queue.nr) {
		struct metacommit_data data = METACOMMIT_DATA_INIT;
		struct object_id oid = queue.oid[--queue.nr];
		unsigned behind = depth[queue.nr] + 1;
		struct commit *meta = lookup_commit(ev->repo, &oid);

		if (!meta || oidset_insert(&seen, &oid) ||
		    parse_metacommit(ev->repo, meta, &data, &err) <= 0)
			goto next;
		for (size_t i = 0; i < data.replace.nr; i++) {
			struct metacommit_data old = METACOMMIT_DATA_INIT;
			const struct object_id *replaced = &data.replace.oid[i];
			struct commit *commit = lookup_commit(ev->repo, replaced);

			if (commit &&
			    parse_metacommit(ev->repo, commit, &old, &err) > 0) {
				mark_obsolete(ev, &old.content, item, behind);
				oid_array_append(&queue, replaced);
				ALLOC_GROW(depth, queue.nr, depth_alloc);
				depth[queue.nr - 1] = behind;
			} else {
				mark_obsolete(ev, replaced, item, behind);
			}
			metacommit_data_clear(&old);
		}
	next:
		metacommit_data_clear(&data);
		strbuf_reset(&err);
	}
	free(depth);
	oid_array_clear(&queue);
	oidset_clear(&seen);
	strbuf_release(&err);
}

/*
 * The versions fetched from remotes count as local ones do: a commit
 * that a remote change replaced is obsolete, and what is built on it
 * goes onto the remote version. Only the newest of them get an item: a
 * remote version that a local change or another remote version replaced
 * is history, as are those that a local change already holds.
 */
static void add_remote_versions(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct oidset below = OIDSET_INIT;

	change_table_refnames(&ev->remote_table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head =
			change_table_get(&ev->remote_table, name->string);

		if (head && !head->abandoned)
			change_history_add(ev->repo, &head->head, &below);
	}
	for_each_string_list_item(name, &refnames) {
		struct change_head *head =
			change_table_get(&ev->remote_table, name->string);
		struct evolve_item *item;

		if (!head || head->abandoned ||
		    oidset_contains(&below, &head->head) ||
		    oidset_contains(&below, &head->content) ||
		    oidmap_get(&ev->obsolete, &head->content) ||
		    oidmap_get(&ev->items, &head->content))
			continue;
		item = get_item(ev, &head->content);
		item->remote = 1;
		item->result = item->commit;
		item->state = ITEM_DONE;
		string_list_append(&item->refnames, name->string)->util = head;
		mark_history_obsolete(ev, item, head);
	}
	oidset_clear(&below);
	string_list_clear(&refnames, 0);
}

/*
 * A change caught up by id (catch_up_by_id()) is at a version whose
 * history does not hold the change's commit yet: that commit is
 * obsolete too, replaced by `item`.
 */
static void mark_caught_up_by_id(struct evolver *ev, struct evolve_item *item,
				 const char *refname)
{
	struct caught_up *caught_up = caught_up_by_id(ev, refname);

	if (caught_up)
		mark_obsolete(ev, &caught_up->was.content, item, 1);
}

/* Load every change, and find the commits they make obsolete. */
static void load_changes(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;

	/* Costs every change: tests check which commands avoid it. */
	trace2_region_enter("evolve", "load_changes", ev->repo);
	load_items(ev);
	change_table_refnames(&ev->table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = local_head(ev, name->string);
		struct evolve_item *item =
			head ? oidmap_get(&ev->items, &head->content) : NULL;

		if (!item)
			continue;
		mark_history_obsolete(ev, item, head);
		mark_caught_up_by_id(ev, item, name->string);
	}
	string_list_clear(&refnames, 0);
	add_remote_versions(ev);
	trace2_region_leave("evolve", "load_changes", ev->repo);
}

/*
 * The name of the (first) change of `item`, as users write it:
 * "metas/foo", or "origin/metas/foo" for a remote version.
 */
static const char *item_name(struct evolve_item *item)
{
	const char *name;

	if (item->carried)
		return item->carried;
	name = item->refnames.items[0].string;
	if (!skip_prefix(name, "refs/remotes/", &name))
		skip_prefix(name, "refs/", &name);
	return name;
}

static struct commit *resolve(struct evolver *ev, struct commit *commit,
			      int *changed, struct evolve_item **item);

/*
 * How the steps name `onto`, what `onto_item` (NULL if none) became: by
 * its change, else as an upstream, else by its object name. A change that
 * became empty or was dropped left its place to what its parent became,
 * which names it.
 */
static char *describe_onto(struct evolver *ev, struct evolve_item *onto_item,
			   struct commit *onto)
{
	const char *name = NULL;

	while (onto_item && !onto_item->landed &&
	       (onto_item->emptied || onto_item->abandoned) &&
	       onto_item->result == onto && onto_item->commit->parents) {
		struct evolve_item *below;
		int changed = 0;

		if (!resolve(ev, onto_item->commit->parents->item, &changed,
			     &below))
			break;
		onto_item = below;
	}
	if (onto_item && onto_item->result == onto && !onto_item->carried &&
	    !onto_item->emptied && !onto_item->abandoned) {
		name = item_name(onto_item);
	} else {
		/* e.g. the parent of an abandoned change */
		onto_item = oidmap_get(&ev->items, &onto->object.oid);
		name = onto_item && onto_item->result == onto &&
			!onto_item->carried ? item_name(onto_item) : NULL;
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

	for_each_string_list_item(entry, &ev->caught_up) {
		struct caught_up *caught_up = entry->util;
		struct change_head *old = change_table_get(&ev->table,
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
				    struct evolve_item *item, char *onto)
{
	struct evolve_step *step = append_step(ev->result, type, onto);
	struct string_list_item *name;

	oidcpy(&step->commit, &item->commit->object.oid);
	for_each_string_list_item(name, &item->refnames)
		string_list_append(&step->refnames, name->string);
	return step;
}

static int visit(struct evolver *ev, struct evolve_item *item);
static int visit_deep(struct evolver *ev, struct evolve_item *item);

/* The ways out of it are the command's hint (EVOLVE_STOP_*DIVERGENCE). */
static void report_divergence(struct evolver *ev,
			      struct obsolete_commit *obsolete)
{
	const char *commit = repo_find_unique_abbrev(ev->repo,
						     &obsolete->entry.oid,
						     DEFAULT_ABBREV);
	/* The local version first: it is the one to check out. */
	int swap = obsolete->newest->remote && !obsolete->divergent->remote;
	const char *newest = item_name(swap ? obsolete->divergent :
				       obsolete->newest);
	const char *divergent = item_name(swap ? obsolete->newest :
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
	struct evolve_item *item;

	oidmap_iter_init(&ev->items, &iter);
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
	struct evolve_item *item;

	ev->ids_in_upstreams_ready = 1;
	if (!ev->in_upstream)
		find_commits_in_upstreams(ev);
	oidmap_iter_init(&ev->items, &iter);
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
static struct commit *landed_as(struct evolver *ev, struct evolve_item *item,
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
		struct change_head *head = local_head(ev, name->string);

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

/* How far carried_item() trusts commit dates: a day of clock skew. */
#define CARRY_DATE_SLACK (24 * 60 * 60)

static int add_published(const struct reference *ref, void *cb_data)
{
	struct evolver *ev = cb_data;
	struct commit *commit;

	if (is_change_refname(ref->name) ||
	    !(commit = lookup_commit_reference_gently(ev->repo, ref->oid, 1)))
		return 0;
	ALLOC_GROW(ev->published, ev->published_nr + 1, ev->published_alloc);
	ev->published[ev->published_nr++] = commit;
	return 0;
}

/*
 * What carried_item() needs, computed the first time: the oldest date of
 * a commit that can move without a change above it knowing (an obsolete
 * or abandoned commit), and the tips of the published history (remote
 * branches and the upstreams).
 */
static void prepare_carrying(struct evolver *ev)
{
	struct oidmap_iter iter;
	struct obsolete_commit *obsolete;
	struct evolve_item *item;
	struct string_list_item *upstream;
	timestamp_t oldest = TIME_MAX;

	ev->carry_ready = 1;
	oidmap_iter_init(&ev->obsolete, &iter);
	while ((obsolete = oidmap_iter_next(&iter))) {
		struct commit *commit = lookup_commit(ev->repo,
						      &obsolete->entry.oid);

		if (commit && !repo_parse_commit(ev->repo, commit))
			if (commit->date < oldest)
				oldest = commit->date;
	}
	oidmap_iter_init(&ev->items, &iter);
	while ((item = oidmap_iter_next(&iter)))
		if (item->abandoned && !repo_parse_commit(ev->repo, item->commit) &&
		    item->commit->date < oldest)
			oldest = item->commit->date;
	ev->carry_horizon = oldest > CARRY_DATE_SLACK ?
		oldest - CARRY_DATE_SLACK : 0;

	refs_for_each_remote_ref(get_main_ref_store(ev->repo), add_published, ev);
	for_each_string_list_item(upstream, &ev->upstreams) {
		ALLOC_GROW(ev->published, ev->published_nr + 1,
			   ev->published_alloc);
		ev->published[ev->published_nr++] = upstream->util;
	}
}

static struct evolve_item *add_carried_item(struct evolver *ev,
					    struct commit *commit)
{
	struct evolve_item *item;

	CALLOC_ARRAY(item, 1);
	oidcpy(&item->entry.oid, &commit->object.oid);
	item->commit = commit;
	string_list_init_dup(&item->refnames);
	item->carried = xstrdup(repo_find_unique_abbrev(ev->repo,
							&commit->object.oid,
							DEFAULT_ABBREV));
	oidmap_put(&ev->items, item);
	return item;
}

/*
 * A commit without a change between a change and the obsolete (or
 * abandoned) commit it is built on, say the commit of a change that was
 * forgotten, or commits made while changes were off, must move with the
 * stack, or the changes above it would stay on the old version. If the
 * first-parent history of `commit` reaches an obsolete commit or a change
 * through such commits only (no merge, nothing older than any commit that
 * can move), those commits get an item without a name: evolve rebases
 * them like changes, and recording the rewrite gives each a change. They
 * are never published ones: a commit in a remote branch or an upstream
 * stays where it is. Returns the item of `commit`, or NULL.
 */
static struct evolve_item *carried_item(struct evolver *ev,
					struct commit *commit)
{
	struct commit_list *path = NULL;
	struct commit *c = commit;
	int carry = 0;

	if (!ev->carry_ready)
		prepare_carrying(ev);
	while (!oidset_contains(&ev->not_carried, &c->object.oid)) {
		if (oidmap_get(&ev->obsolete, &c->object.oid) ||
		    oidmap_get(&ev->items, &c->object.oid)) {
			carry = !!path;
			break;
		}
		if (repo_parse_commit(ev->repo, c) || !c->parents ||
		    c->parents->next || c->date < ev->carry_horizon) {
			oidset_insert(&ev->not_carried, &c->object.oid);
			break;
		}
		commit_list_insert(c, &path);
		c = c->parents->item;
	}
	/* The lowest commit is published if any is: then all are. */
	if (carry && ev->published_nr &&
	    repo_in_merge_bases_many(ev->repo, path->item, ev->published_nr,
				     ev->published, 1) > 0)
		carry = 0;

	for (struct commit_list *p = path; p; p = p->next) {
		if (!carry) {
			oidset_insert(&ev->not_carried, &p->item->object.oid);
			continue;
		}
		add_carried_item(ev, p->item);
	}
	commit_list_free(path);
	return carry ? oidmap_get(&ev->items, &commit->object.oid) : NULL;
}

/*
 * What `commit` becomes: the newest version of it if it is obsolete, its
 * evolved version if it is the content of a change, or itself. Sets
 * `*changed` if that is not `commit`, and `*item` to the change it belongs
 * to, if any. Returns NULL with a message in ev->err on failure.
 */
static struct commit *resolve(struct evolver *ev, struct commit *commit,
			      int *changed, struct evolve_item **item)
{
	struct obsolete_commit *obsolete;

	*item = NULL;
	obsolete = oidmap_get(&ev->obsolete, &commit->object.oid);
	if (obsolete) {
		if (obsolete->divergent) {
			report_divergence(ev, obsolete);
			return NULL;
		}
		*item = obsolete->newest;
		*changed = 1;
	} else {
		*item = oidmap_get(&ev->items, &commit->object.oid);
		if (!*item)
			*item = carried_item(ev, commit);
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
static int report_conflict(struct evolver *ev, struct evolve_item *item,
			   const char *onto)
{
	struct string_list paths = STRING_LIST_INIT_NODUP;
	struct string_list_item *path;

	if (item->commit->parents && item->commit->parents->next)
		strbuf_addf(ev->err,
			    _("could not rebase the merge commit '%s' onto '%s': "
			      "conflict"),
			    item_name(item), onto);
	else
		strbuf_addf(ev->err, _("could not rebase '%s' onto '%s': conflict"),
			    item_name(item), onto);
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

/*
 * Write a commit of `tree` with `parents` in place of `like`: with its
 * message and author (the committer is whoever runs this). Returns 0 and
 * sets `out`, or -1.
 */
static int commit_like(struct repository *r, struct commit *like,
		       const struct object_id *tree, struct commit_list *parents,
		       struct object_id *out)
{
	const char *buffer = repo_logmsg_reencode(r, like, NULL,
						  get_commit_output_encoding());
	const char *author, *body;
	char *author_line = NULL;
	struct commit_extra_header *extra = NULL;
	size_t len;
	int ret;

	author = find_commit_header(buffer, "author", &len);
	if (author)
		author_line = xmemdupz(author, len);
	find_commit_subject(buffer, &body);
	/* It continues the change of `like`, and keeps its change-id. */
	set_change_id_header(r, &extra, like);
	ret = commit_tree_extended(body, strlen(body), tree, parents, out,
				   author_line, NULL, NULL, extra) ? -1 : 0;
	free_commit_extra_headers(extra);
	free(author_line);
	repo_unuse_commit_buffer(r, like, buffer);
	return ret;
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
static struct commit *try_pick(struct evolver *ev, struct evolve_item *item,
			       struct commit *onto)
{
	start_merging(ev);
	return replay_pick_commit(ev->repo, item->commit, onto, &ev->merge_opt,
				  &ev->merge_result, REPLAY_EMPTY_COMMIT_DROP);
}

/* `item` was rebased onto `onto` as `picked` (`onto` itself if emptied). */
static void record_pick(struct evolver *ev, struct evolve_item *item,
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
static int pick(struct evolver *ev, struct evolve_item *item,
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
			oidmap_get(&ev->obsolete, &commit->object.oid);
		struct evolve_item *item = obsolete ? obsolete->newest :
			oidmap_get(&ev->items, &commit->object.oid);

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
static int cycle_members(struct evolver *ev, struct evolve_item *item,
			 struct evolve_item ***members, size_t *nr)
{
	struct evolve_item *member = item;
	size_t alloc = 0;

	*members = NULL;
	*nr = 0;
	do {
		struct commit *parent;
		struct obsolete_commit *obsolete;

		if (member->abandoned || repo_parse_commit(ev->repo, member->commit) ||
		    !member->commit->parents || member->commit->parents->next ||
		    *nr > oidmap_get_size(&ev->items))
			goto fail;
		ALLOC_GROW(*members, *nr + 1, alloc);
		(*members)[(*nr)++] = member;
		parent = member->commit->parents->item;
		obsolete = oidmap_get(&ev->obsolete, &parent->object.oid);
		member = obsolete ? obsolete->newest :
			oidmap_get(&ev->items, &parent->object.oid);
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
static int try_cycle_order(struct evolver *ev, struct evolve_item **members,
			   size_t nr, size_t first, struct commit *onto,
			   struct evolve_item *onto_item)
{
	struct commit **picked;
	struct commit *prev = onto;
	int ret = 0;

	ALLOC_ARRAY(picked, nr);
	for (size_t i = 0; i < nr; i++) {
		struct evolve_item *member = members[(first + nr - i) % nr];

		picked[i] = try_pick(ev, member, prev);
		if (!picked[i]) {
			ret = 1;
			goto out;
		}
		prev = picked[i];
	}
	prev = onto;
	for (size_t i = 0; i < nr; i++) {
		struct evolve_item *member = members[(first + nr - i) % nr];

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
static int break_cycle(struct evolver *ev, struct evolve_item *item)
{
	struct commit *base, *onto;
	struct evolve_item *onto_item;
	struct evolve_item **members;
	size_t nr;
	int changed = 0;

	base = item->commit->parents ?
		below_cycle(ev, item->commit->parents->item) : NULL;
	if (!base) {
		strbuf_addf(ev->err, _("the changes form a cycle at '%s', "
				       "with no commit below it"),
			    item_name(item));
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
static int pick_merge(struct evolver *ev, struct evolve_item *item,
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
				    item_name(item));
			free(onto_name);
			return -1;
		}
		ev->merge_opt.ancestor = "old parent";
		ev->merge_opt.branch1 = "new parent";
		ev->merge_opt.branch2 = item_name(item);
		merge_incore_nonrecursive(&ev->merge_opt,
					  repo_get_commit_tree(r, old->item),
					  repo_get_commit_tree(r, new->item),
					  tree, &ev->merge_result);
		if (ev->merge_result.clean <= 0) {
			report_conflict(ev, item, onto_name);
			set_stop(ev->result, EVOLVE_STOP_MERGE_COMMIT,
				 item_name(item), NULL);
			free(onto_name);
			return -1;
		}
		tree = ev->merge_result.tree;
	}

	/* Two parents that became one commit are one parent. */
	for (new = parents; new; new = new->next)
		if (!commit_list_contains(new->item, unique))
			tail = commit_list_append(new->item, tail);
	ret = commit_like(r, item->commit, &tree->object.oid, unique, &oid);
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
static int visit_merge(struct evolver *ev, struct evolve_item *item)
{
	struct commit_list *parents = NULL, **tail = &parents;
	struct evolve_item *onto_item = NULL, *first_item = NULL;
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

static int visit_one(struct evolver *ev, struct evolve_item *item);

static int visit(struct evolver *ev, struct evolve_item *item)
{
	int ret;

	if (ev->visit_depth >= MAX_VISIT_DEPTH) {
		strbuf_addf(ev->err, _("the changes form a cycle of more than "
				       "%d changes at '%s'"),
			    MAX_VISIT_DEPTH, item_name(item));
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
static struct evolve_item *parent_item(struct evolver *ev,
				       struct commit *commit)
{
	struct obsolete_commit *obsolete =
		oidmap_get(&ev->obsolete, &commit->object.oid);
	struct evolve_item *item;

	if (obsolete)
		return obsolete->divergent ? NULL : obsolete->newest;
	item = oidmap_get(&ev->items, &commit->object.oid);
	return item ? item : carried_item(ev, commit);
}

/*
 * A change that `item` is built on and that is still to visit, or NULL.
 * Sets `*cycle` if that change is already waiting for `item`.
 */
static struct evolve_item *pending_parent(struct evolver *ev,
					  struct evolve_item *item, int *cycle)
{
	if (repo_parse_commit(ev->repo, item->commit))
		return NULL;	/* visit() says so */
	for (struct commit_list *p = item->commit->parents; p; p = p->next) {
		struct evolve_item *dep = parent_item(ev, p->item);

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
static int visit_deep(struct evolver *ev, struct evolve_item *item)
{
	struct evolve_item **stack = NULL;
	size_t nr = 0, alloc = 0;
	int ret = 0;

	if (item->state != ITEM_PENDING)
		return visit(ev, item);
	ALLOC_GROW(stack, nr + 1, alloc);
	stack[nr++] = item;
	item->queued = 1;
	while (nr) {
		struct evolve_item *top = stack[nr - 1];
		struct evolve_item *dep = NULL;
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

static int visit_one(struct evolver *ev, struct evolve_item *item)
{
	struct commit *parent, *onto;
	struct evolve_item *onto_item;
	int changed = 0;

	if (item->state == ITEM_DONE)
		return 0;
	if (item->state == ITEM_VISITING)
		return break_cycle(ev, item);
	item->state = ITEM_VISITING;
	item->result = item->commit;

	if (repo_parse_commit(ev->repo, item->commit)) {
		strbuf_addf(ev->err, _("could not parse the commit of '%s'"),
			    item_name(item));
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
			if (as)
				add_step(ev, EVOLVE_STEP_DELETE_LANDED_AS, item,
					 xstrdup(upstream->string))->merge =
					xstrdup(repo_find_unique_abbrev(ev->repo,
									&as->object.oid,
									DEFAULT_ABBREV));
			else
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

/* A divergent commit of that kind, the same one every time, or NULL. */
static struct obsolete_commit *first_divergence(struct evolver *ev,
						enum divergence_kind kind)
{
	struct oidmap_iter iter;
	struct obsolete_commit *obsolete;
	struct obsolete_commit *first = NULL;

	oidmap_iter_init(&ev->obsolete, &iter);
	while ((obsolete = oidmap_iter_next(&iter))) {
		unsigned remotes;

		if (!obsolete->divergent)
			continue;
		remotes = obsolete->newest->remote + obsolete->divergent->remote;
		if (remotes == 2 ||
		    (remotes && kind == DIVERGENCE_LOCAL))
			continue;
		if (!first || oidcmp(&obsolete->entry.oid, &first->entry.oid) < 0)
			first = obsolete;
	}
	return first;
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

static int visit_all(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct progress *progress = NULL;
	int ret = 0;

	if (check_divergence(ev))
		return -1;

	change_table_refnames(&ev->table, &refnames);
	if (ev->opts->show_progress)
		progress = start_delayed_progress(ev->repo, _("Evolving changes"),
						  refnames.nr);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev->table, name->string);
		struct evolve_item *item;

		display_progress(progress, name - refnames.items + 1);
		if (!head || !(item = oidmap_get(&ev->items, &head->content)))
			continue;
		if (visit_deep(ev, item)) {
			ret = -1;
			break;
		}
	}
	stop_progress(&progress);
	string_list_clear(&refnames, 0);
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

	odb_hold_writes(ev->repo->objects);
	ret = visit_all(ev);
	/* A dry run drops them once it has said what it would do. */
	if (ev->opts->dry_run)
		return ret;
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
			     int is_head, int *failed, struct evolve_item **item)
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
	if (!is_head && !oidmap_get(&ev->obsolete, &commit->object.oid) &&
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
	struct evolve_item *item;
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
			struct change_head *old = change_table_get(&ev->table,
								   name->string);
			struct change_head *head = local_head(ev, name->string);

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

	for_each_string_list_item(entry, &ev->caught_up) {
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
		struct evolve_item *item = oidmap_get(&ev->items,
						      &ev->rewrites[i].old);
		struct string_list_item *name;

		for_each_string_list_item(name, &item->refnames) {
			struct caught_up *caught_up =
				caught_up_by_id(ev, name->string);

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

	ALLOC_ARRAY(all, st_add(ev->caught_up.nr, ev->rewrites_nr));
	for_each_string_list_item(entry, &ev->caught_up) {
		struct caught_up *caught_up = entry->util;

		if (caught_up->remote_refname ||
		    moved_by(cb, entry->string) ||
		    !oidmap_get(&ev->items, &caught_up->head.content))
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
	char *autostash = state_path(ev->repo, "autostash");
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
		struct evolve_item *item;
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
	change_table_init(&ev->table);
	change_table_init(&ev->remote_table);
	string_list_init_dup(&ev->caught_up);
	oidmap_init(&ev->items, 0);
	oidmap_init(&ev->obsolete, 0);
	oidset_init(&ev->not_carried, 0);
	oidset_init(&ev->asked_upstreams, 0);
	strmap_init(&ev->ids_in_upstreams);
}

static void evolver_release(struct evolver *ev)
{
	struct string_list_item *caught_up;

	oidmap_clear_with_free(&ev->items, free_item);
	oidmap_clear(&ev->obsolete, 1);
	change_table_clear(&ev->table);
	change_table_clear(&ev->remote_table);
	for_each_string_list_item(caught_up, &ev->caught_up) {
		free(((struct caught_up *)caught_up->util)->remote_refname);
		free(((struct caught_up *)caught_up->util)->fetched_name);
	}
	string_list_clear(&ev->caught_up, 1);
	if (ev->in_upstream)
		for (size_t i = 0; i < ev->upstreams.nr; i++)
			oidset_clear(&ev->in_upstream[i]);
	free(ev->in_upstream);
	oidset_clear(&ev->asked_upstreams);
	strmap_clear(&ev->ids_in_upstreams, 1);
	string_list_clear(&ev->upstreams, 0);
	oidset_clear(&ev->not_carried);
	free(ev->published);
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
	char *path = state_path(ev->repo, "upstreams");
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
	char *path = state_path(ev->repo, "head-name");
	char *onto = state_path(ev->repo, "onto");
	struct strbuf buf = STRBUF_INIT;
	const char *invalid = NULL;
	int ret = -1;

	if (strbuf_read_file(&buf, path, 0) < 0)
		goto out;
	if (read_state_oid(ev->repo, "orig-head", &ev->head_oid)) {
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
	struct evolve_item *item = oidmap_get(&ev->items, &onto->object.oid);

	/* A change that needed no rebase, e.g. the amended bottom one. */
	if (item && item->state != ITEM_DONE && item->refnames.nr &&
	    !item->abandoned)
		return xstrdup(item_name(item));
	oidmap_iter_init(&ev->items, &iter);
	while ((item = oidmap_iter_next(&iter)))
		if (item->state == ITEM_DONE && item->result == onto &&
		    item->refnames.nr && !item->emptied)
			return xstrdup(item_name(item));
	return describe_onto(ev, NULL, onto);
}

/*
 * The step of `item`, taken over from the stopped evolve: reported then,
 * unless --continue concluded it now (a change that became empty when its
 * conflict was resolved is never deleted without a word).
 */
static void add_seeded_step(struct evolver *ev, enum evolve_step_type type,
			    struct evolve_item *item)
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
		struct evolve_item *item;
		const char *end = strchrnul(p, '\n');

		if (!parse_oid_hex(p, &result, &p) && *p == ' ' &&
		    !parse_oid_hex(p + 1, &old, &p)) {
			struct commit *commit = lookup_commit(ev->repo, &old);

			item = oidmap_get(&ev->items, &old);
			/* Not a change's: a commit evolve was carrying along. */
			if (!item && commit)
				item = add_carried_item(ev, commit);
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
	char *autostash = state_path(r, "autostash");
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
		write_state(r, "head-name",
			    ev->head_branch ? ev->head_branch : "detached");
		write_state(r, "orig-head", oid_to_hex(&ev->head_oid));
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
		write_state(r, "upstreams", done.buf);
		strbuf_reset(&done);
		if (ev->saved_changes && ev->saved_changes->len)
			write_state(r, CHANGES_SAVED_FILE, ev->saved_changes->buf);
	}
	strbuf_addstr(&done, done_before);
	format_done(ev, &done);
	write_state(r, "done", done.buf);	/* EVOLVE_SAVED_FILE */
	write_state(r, "current",
		    oid_to_hex(&ev->conflict_item->commit->object.oid));
	write_state(r, "onto", oid_to_hex(&ev->conflict_onto->object.oid));

	if (reset_head(r, &opts) ||
	    repo_hold_locked_index(r, &lock, LOCK_REPORT_ON_ERROR) < 0)
		goto out;
	/* The in-memory merge of the conflicting pick, into the work tree. */
	merge_switch_to_result(&ev->merge_opt,
			       repo_get_commit_tree(r, ev->conflict_onto),
			       &ev->merge_result, 1, 0);
	ev->merging = 0;
	if (write_locked_index(r->index, &lock, COMMIT_LOCK))
		strbuf_addstr(ev->err, _("\ncould not write the index"));
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
	char *path = state_path(r, "done");
	int ret = -1;

	if (strbuf_read_file(done, path, 0) < 0 ||
	    read_state_oid(r, "current", &current_oid) ||
	    read_state_oid(r, "onto", &onto_oid) ||
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
		    made_on(r, lookup_commit_reference_gently(r, &head, 1),
			    &onto_oid)) {
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
		failed = commit_like(r, current, &tree, parents, &new);
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

static int merge_versions(struct repository *r, struct commit *a,
			  struct commit *b, const char *b_label,
			  int leave_conflicts, struct object_id *merged,
			  struct strbuf *err);
static int record_merged_versions(struct repository *r, struct commit *a,
				  struct commit *b,
				  const struct object_id *merged,
				  const char *reason, struct strbuf *err);

/* Append the parents of `commit` to `parents`, except `skip` and duplicates. */
static void add_parents(struct commit *commit, struct commit *skip,
			struct commit_list **parents)
{
	for (struct commit_list *p = commit->parents; p; p = p->next) {
		struct commit_list **tail = parents;
		int seen = p->item == skip;

		for (; *tail; tail = &(*tail)->next)
			if ((*tail)->item == p->item)
				seen = 1;
		if (!seen)
			commit_list_insert(p->item, tail);
	}
}

void evolve_merged_parents(struct commit *a, struct commit *b,
			   struct commit_list **parents)
{
	add_parents(a, b, parents);
	add_parents(b, a, parents);
}

/*
 * Resolving a divergence moves the changes of `item` before evolve may
 * stop: remember where they were, so that --abort puts them back.
 */
static void save_item_changes(struct evolver *ev, struct evolve_item *item)
{
	struct string_list_item *name;

	/* A remote version is not moved: nothing to put back. */
	if (!ev->saved_changes || item->remote)
		return;
	for_each_string_list_item(name, &item->refnames) {
		/* Where it is, not the remote version it catches up with. */
		struct change_head *head = change_table_get(&ev->table,
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
static struct evolve_item *follow_up_merge(struct evolver *ev,
					   struct obsolete_commit *divergent)
{
	struct commit *a = divergent->newest->commit;
	struct commit *b = divergent->divergent->commit;
	struct evolve_item *found = NULL, *item;
	struct oidmap_iter iter;

	oidmap_iter_init(&ev->items, &iter);
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
	struct evolve_item *merge = follow_up_merge(ev, divergent);
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
	ret = commit_like(r, a, get_commit_tree_oid(merge->commit), parents,
			  &squashed);
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
	if (record_rewrites(r, rewrites, ARRAY_SIZE(rewrites), REWRITE_MODIFY,
			    "evolve (follow-up merge)", ev->err))
		return -1;
	add_step(ev, EVOLVE_STEP_SQUASH_MERGE, divergent->newest,
		 xstrdup(item_name(divergent->divergent)))->merge =
		xstrdup(item_name(merge));
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
	struct evolve_item *ours = divergent->newest->remote ?
		divergent->divergent : divergent->newest;
	struct evolve_item *theirs = ours == divergent->newest ?
		divergent->divergent : divergent->newest;
	struct object_id merged;
	int ret = merge_versions(ev->repo, ours->commit, theirs->commit,
				 NULL, 0, &merged, ev->err);

	if (!ret) {
		save_item_changes(ev, ours);
		save_item_changes(ev, theirs);
	}
	if (!ret)
		ret = record_merged_versions(ev->repo, ours->commit,
					     theirs->commit, &merged,
					     "evolve --auto-merge", ev->err);
	if (!ret)
		add_step(ev, EVOLVE_STEP_MERGE_DIVERGENT, ours,
			 xstrdup(item_name(theirs)));
	return ret;
}

/*
 * Before the changes are evolved, end the divergences that the enabled
 * transformations can end: a follow-up merge of the divergent versions
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
			       struct strbuf *saved_changes, struct strbuf *err)
{
	/* Each round ends a divergence; never try more than there were. */
	unsigned tries = 0, max_tries = 0;

	do {
		struct obsolete_commit *divergent;
		int ret = 1;

		evolver_init(ev, r, err);
		ev->opts = opts;
		ev->result = result;
		ev->saved_changes = saved_changes;
		load_changes(ev);
		if (!max_tries)
			max_tries = oidmap_get_size(&ev->obsolete);
		/* Only a merge resolves a divergence from a remote. */
		divergent = first_divergence(ev, opts->auto_merge ?
					     DIVERGENCE_WITH_REMOTE :
					     DIVERGENCE_LOCAL);
		/* Loaded, with nothing to merge: evolve goes on from here. */
		if (!divergent)
			return 0;
		if (opts->follow_up_merges &&
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
	int in_memory = 0, loaded = 0, ret;

	if (opts->action == EVOLVE_START && evolve_in_progress(r)) {
		strbuf_addstr(err, _("an evolve is in progress; use \"git evolve --continue\", "
				     "\"--skip\" or \"--abort\""));
		return -1;
	}
	if (opts->action != EVOLVE_START && !evolve_in_progress(r)) {
		strbuf_addstr(err, _("no evolve in progress"));
		return -1;
	}

	if (opts->action == EVOLVE_START && !opts->dry_run &&
	    (opts->follow_up_merges || opts->auto_merge)) {
		ret = resolve_divergences(&ev, r, opts, result, &saved_changes,
					  err);
		if (ret < 0) {
			strbuf_release(&saved_changes);
			return -1;
		}
		/* Loading every change costs most: do it once if we can. */
		loaded = !ret;
	}

	if (!loaded)
		evolver_init(&ev, r, err);
	ev.opts = opts;
	ev.result = result;
	ev.saved_changes = &saved_changes;
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
			load_changes(&ev);
		if (!ev.resuming)
			add_catch_up_steps(&ev);
		seed_done(&ev, done.buf);
		ev.new_rewrites = ev.rewrites_nr;
		ret = evolve_in_memory(&ev);
		in_memory = 1;
	}
	if (!ret)
		ret = write_results(&ev);
	else if (ev.conflict_item && !opts->dry_run)
		ret = stop_on_conflict(&ev, done.buf);
	if (!ret && !opts->dry_run) {
		remove_state(r);
		forget_orphaned(r);
		forget_divergent(r);
	}
	if (in_memory && opts->dry_run)
		odb_discard_writes(r->objects);

	if (ev.merging)
		merge_finalize(&ev.merge_opt, &ev.merge_result);
	free(ev.rewrites);
	free(ev.emptied);
	free(ev.head_branch);
	evolver_release(&ev);
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
		autostash = state_path(r, "autostash");
		apply_autostash(autostash);
		free(autostash);
		remove_state(r);
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
		autostash = state_path(r, "autostash");
		apply_autostash(autostash);
		free(autostash);
		remove_state(r);
	}
	free(ev.head_branch);
	evolver_release(&ev);
	return ret ? -1 : 0;
}

int evolve_resolve_upstreams(struct repository *r, const char **names, int nr,
			     struct string_list *upstreams, struct strbuf *err)
{
	for (int i = 0; i < nr; i++) {
		struct commit *upstream = lookup_commit_reference_by_name(names[i]);

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

int evolve_children(struct repository *r, struct commit *commit,
		    struct string_list *out)
{
	struct evolver ev;
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct strbuf err = STRBUF_INIT;

	evolver_init(&ev, r, &err);
	load_changes(&ev);
	change_table_refnames(&ev.table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev.table, name->string);
		struct evolve_item *item = head ?
			oidmap_get(&ev.items, &head->content) : NULL;
		struct obsolete_commit *obsolete;
		struct commit *parent;

		/* Each commit once, under the first name of its change. */
		if (!item || item->abandoned ||
		    strcmp(item->refnames.items[0].string, name->string) ||
		    repo_parse_commit(r, item->commit) || !item->commit->parents)
			continue;
		parent = item->commit->parents->item;
		obsolete = oidmap_get(&ev.obsolete, &parent->object.oid);
		if (parent == commit ||
		    (obsolete && obsolete->newest->commit == commit))
			string_list_append(out, name->string)->util = item->commit;
	}
	string_list_clear(&refnames, 0);
	evolver_release(&ev);
	strbuf_release(&err);
	return 0;
}

struct commit *evolve_newest_parent(struct repository *r, struct commit *commit,
				    struct strbuf *err)
{
	struct evolver ev;
	struct obsolete_commit *obsolete;
	struct commit *parent = NULL;

	if (repo_parse_commit(r, commit) || !commit->parents) {
		strbuf_addf(err, _("%s has no parent"),
			    repo_find_unique_abbrev(r, &commit->object.oid,
						    DEFAULT_ABBREV));
		return NULL;
	}
	evolver_init(&ev, r, err);
	load_changes(&ev);
	parent = commit->parents->item;
	obsolete = oidmap_get(&ev.obsolete, &parent->object.oid);
	if (obsolete && obsolete->divergent) {
		strbuf_addf(err, _("the parent %s is replaced by both '%s' and '%s' (divergence)"),
			    repo_find_unique_abbrev(r, &parent->object.oid,
						    DEFAULT_ABBREV),
			    item_name(obsolete->newest),
			    item_name(obsolete->divergent));
		parent = NULL;
	} else if (obsolete) {
		parent = obsolete->newest->commit;
	}
	evolver_release(&ev);
	return parent;
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

/*
 * Leave the conflicts of the merge `result` of the versions `head` (HEAD,
 * which the index matches) and another in the work tree and the index,
 * with markers, as "git merge" does; `result` is finalized.
 */
static int leave_merge_conflicts(struct repository *r,
				 struct merge_options *opt,
				 struct commit *head,
				 struct merge_result *result,
				 struct strbuf *err)
{
	struct lock_file lock = LOCK_INIT;

	if (repo_hold_locked_index(r, &lock, LOCK_REPORT_ON_ERROR) < 0) {
		merge_finalize(opt, result);
		strbuf_addstr(err, _("could not lock the index"));
		return -1;
	}
	merge_switch_to_result(opt, repo_get_commit_tree(r, head), result,
			       1, 1);
	if (write_locked_index(r->index, &lock,
			       COMMIT_LOCK | SKIP_IF_UNCHANGED)) {
		strbuf_addstr(err, _("could not write the index"));
		return -1;
	}
	return 0;
}

/*
 * Merge two versions `a` and `b` of one commit into a commit that replaces
 * both: merged against their common earlier version (or else their common
 * ancestor), with the parents of both (not a merge of them, when they share
 * a parent) and the message and author of `a`. Returns 0 and sets
 * `merged`, 1 if they conflict, -1 on error; with a message in `err`.
 * `b_label` names `b` in conflict markers. With `leave_conflicts`, `a` is
 * HEAD, which the index matches, and a conflict is left in the work tree
 * and the index for the user to resolve.
 */
static int merge_versions(struct repository *r, struct commit *a,
			  struct commit *b, const char *b_label,
			  int leave_conflicts, struct object_id *merged,
			  struct strbuf *err)
{
	struct merge_options opt;
	struct merge_result result = { 0 };
	struct commit_list *bases = NULL, *parents = NULL;
	struct commit *version, *unparsed;
	struct tree *base_tree;
	int merging = 0, ret = -1;

	unparsed = repo_parse_commit(r, a) ? a : repo_parse_commit(r, b) ? b : NULL;
	if (unparsed) {
		strbuf_addf(err, _("could not parse commit %s"),
			    oid_to_hex(&unparsed->object.oid));
		return -1;
	}
	version = evolve_meta_merge_base(r, a, b);
	if (version) {
		base_tree = repo_get_commit_tree(r, version);
	} else {
		if (repo_get_merge_bases(r, a, b, &bases) < 0)
			goto out;
		base_tree = bases ? repo_get_commit_tree(r, bases->item) :
			lookup_tree(r, r->hash_algo->empty_tree);
	}
	init_basic_merge_options(&opt, r);
	merging = 1;
	opt.branch1 = "HEAD";
	opt.branch2 = b_label ? b_label : "the other version";
	opt.ancestor = "their common base";
	opt.show_rename_progress = 0;
	merge_incore_nonrecursive(&opt, base_tree, repo_get_commit_tree(r, a),
				  repo_get_commit_tree(r, b), &result);
	if (result.clean < 0) {
		strbuf_addstr(err, _("could not merge the two versions"));
		goto out;
	}
	if (!result.clean) {
		ret = 1;
		if (leave_conflicts) {
			merging = 0;
			if (leave_merge_conflicts(r, &opt, a, &result, err))
				ret = -1;
		}
		if (ret > 0)
			strbuf_addstr(err, _("the two versions conflict"));
		goto out;
	}

	/* It replaces both: its parents are theirs, not them. */
	evolve_merged_parents(a, b, &parents);
	if (commit_like(r, a, &result.tree->object.oid, parents, merged)) {
		strbuf_addstr(err, _("could not write the merged commit"));
		goto out;
	}
	ret = 0;

out:
	if (merging)
		merge_finalize(&opt, &result);
	commit_list_free(bases);
	commit_list_free(parents);
	return ret;
}

/* Record that `merged` replaces both `a` and `b`. */
static int record_merged_versions(struct repository *r, struct commit *a,
				  struct commit *b,
				  const struct object_id *merged,
				  const char *reason, struct strbuf *err)
{
	struct commit_rewrite rewrites[2];

	oidcpy(&rewrites[0].old, &a->object.oid);
	oidcpy(&rewrites[0].new, merged);
	oidcpy(&rewrites[1].old, &b->object.oid);
	oidcpy(&rewrites[1].new, merged);
	return record_rewrites(r, rewrites, 2, REWRITE_MODIFY, reason, err);
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

	ret = merge_versions(r, head, other, other_name, 1, &merged, err);
	if (ret)
		return ret;
	if (record_merged_versions(r, head, other, &merged, "merge --amend", err))
		return -1;
	return move_head(r, &merged, 0, "merge --amend", err);
}

/*
 * Whether the commit of `item` is built on an obsolete or abandoned
 * commit, directly or through the commits of other changes: hg's
 * "orphan", which "git evolve" moves. Decided for every change at once,
 * parents first, with a stack of our own (a stack's depth is data); the
 * orphans go to `orphans`.
 */
static void find_orphans(struct evolver *ev, struct oidset *orphans)
{
	struct oidset expanded = OIDSET_INIT, decided = OIDSET_INIT;
	struct evolve_item **stack = NULL;
	size_t nr = 0, alloc = 0;
	struct oidmap_iter iter;
	struct evolve_item *start;

	oidmap_iter_init(&ev->items, &iter);
	while ((start = oidmap_iter_next(&iter))) {
		ALLOC_GROW(stack, nr + 1, alloc);
		stack[nr++] = start;
		while (nr) {
			struct evolve_item *item = stack[nr - 1];
			const struct object_id *oid = &item->commit->object.oid;
			struct commit_list *p;
			int orphan = 0;

			if (oidset_contains(&decided, oid)) {
				nr--;
				continue;
			}
			if (repo_parse_commit(ev->repo, item->commit)) {
				nr--;
				oidset_insert(&decided, oid);
				continue;
			}
			if (!oidset_insert(&expanded, oid)) {
				for (p = item->commit->parents; p; p = p->next) {
					struct evolve_item *parent =
						oidmap_get(&ev->items, &p->item->object.oid);

					if (parent &&
					    !oidset_contains(&expanded, &parent->commit->object.oid)) {
						ALLOC_GROW(stack, nr + 1, alloc);
						stack[nr++] = parent;
					}
				}
				continue;
			}
			nr--;
			oidset_insert(&decided, oid);
			for (p = item->commit->parents; p && !orphan; p = p->next) {
				const struct object_id *parent_oid = &p->item->object.oid;
				struct evolve_item *parent =
					oidmap_get(&ev->items, parent_oid);

				orphan = oidmap_get(&ev->obsolete, parent_oid) ||
					 (parent && (parent->abandoned ||
						     oidset_contains(orphans, parent_oid)));
			}
			if (orphan)
				oidset_insert(orphans, oid);
		}
	}
	free(stack);
	oidset_clear(&expanded);
	oidset_clear(&decided);
}

void evolve_change_states(struct repository *r, struct string_list *changes)
{
	struct evolver ev;
	struct strbuf err = STRBUF_INIT;
	struct oidmap_iter iter;
	struct obsolete_commit *obsolete;
	struct string_list_item *name;
	struct oidset orphans = OIDSET_INIT;
	struct string_list noted = STRING_LIST_INIT_DUP;
	struct object_id head;

	evolver_init(&ev, r, &err);
	load_changes(&ev);
	find_orphans(&ev, &orphans);
	/* Those diverging from commits fetched with their ids, too. */
	noted_divergent(r, &noted);
	if (refs_read_ref(get_main_ref_store(r), "HEAD", &head))
		oidclr(&head, r->hash_algo);

	/* Which changes are divergent: they replace a commit with another. */
	oidmap_iter_init(&ev.obsolete, &iter);
	while ((obsolete = oidmap_iter_next(&iter)))
		if (obsolete->divergent)
			obsolete->newest->divergent = obsolete->divergent->divergent = 1;

	for_each_string_list_item(name, changes) {
		struct change_head *change = change_table_get(&ev.table,
							      name->string);
		struct evolve_item *item = change ?
			oidmap_get(&ev.items, &change->content) : NULL;
		uintptr_t state = 0;

		if (change && oideq(&change->content, &head))
			state |= CHANGE_STATE_CURRENT;
		if (string_list_lookup(&ev.caught_up, name->string)) {
			/* Its item is the remote version's. */
			name->util = (void *)(state | CHANGE_STATE_BEHIND);
			continue;
		}
		if (!item)
			continue;
		if (item->abandoned)
			state |= CHANGE_STATE_ABANDONED;
		if (item->divergent ||
		    string_list_has_string(&noted, name->string))
			state |= CHANGE_STATE_DIVERGENT;
		if (item->superseded)
			state |= CHANGE_STATE_OBSOLETE;
		if (oidset_contains(&orphans, &item->commit->object.oid))
			state |= CHANGE_STATE_ORPHAN;
		name->util = (void *)state;
	}
	oidset_clear(&orphans);
	string_list_clear(&noted, 0);
	evolver_release(&ev);
	strbuf_release(&err);
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

	*head = ABANDON_HEAD_ELSEWHERE;
	if (abandon_change(r, commit, changes, err))
		return -1;
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

/*
 * The head of the change whose commit is `commit` (`what` names it in the
 * error): the first one by name if several hold it. The content index
 * answers for changes this library moved; only a commit it does not list
 * (a change fetched or set by update-ref) costs reading every change.
 */
static int change_holding(struct repository *r, const struct object_id *commit,
			  const char *what, struct object_id *head,
			  struct strbuf *err)
{
	struct change_table table;
	struct string_list holding = STRING_LIST_INIT_DUP;
	int ret = -1;

	if (indexed_change_of(r, NULL, commit, NULL, head, NULL))
		return 0;
	change_table_init(&table);
	change_table_add_all_visible(&table, r);
	local_changes_of(&table, commit, &holding);
	change_table_clear(&table);
	if (!holding.nr)
		strbuf_addf(err, _("'%s' is not the commit of a change"), what);
	else if (refs_read_ref(get_main_ref_store(r),
			       holding.items[0].string, head))
		strbuf_addf(err, _("could not read '%s'"), holding.items[0].string);
	else
		ret = 0;
	string_list_clear(&holding, 0);
	return ret;
}

/*
 * Where "git log --obslog [<name>]" starts: the head of the change `name`
 * ("metas/foo", "origin/metas/foo", or just "foo"), or else of the change
 * that holds the commit `name` names (a branch, HEAD, a commit).
 */
static int obslog_start(struct repository *r, const char *name,
			struct object_id *head, struct strbuf *err)
{
	struct strbuf refname = STRBUF_INIT;
	struct object_id oid;
	char *ref = NULL;
	int dwimmed, ret = -1;

	if (!name)
		name = "HEAD";
	dwimmed = repo_dwim_ref(r, name, strlen(name), head, &ref, 0) > 0;
	if (dwimmed && is_change_refname(ref)) {
		ret = 0;
		goto out;
	}
	/* A branch or tag of that name comes first, as for any revision. */
	strbuf_add_change_refname(&refname, name);
	if (!dwimmed && !check_refname_format(refname.buf, 0) &&
	    !refs_read_ref(get_main_ref_store(r), refname.buf, head)) {
		ret = 0;
		goto out;
	}
	if (!repo_get_oid_committish(r, name, &oid) &&
	    lookup_commit_reference_gently(r, &oid, 1))
		ret = change_holding(r, &oid, name, head, err);
	else if (!strcmp(name, "HEAD"))
		strbuf_addstr(err, _("HEAD does not point to a commit"));
	else
		strbuf_addf(err, _("change '%s' not found"), name);
out:
	free(ref);
	strbuf_release(&refname);
	return ret;
}

/* The commit of the version `oid` (a metacommit, or a commit). */
static void version_content(struct repository *r, const struct object_id *oid,
			    struct object_id *content)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct commit *commit = lookup_commit_reference_gently(r, oid, 1);
	struct strbuf err = STRBUF_INIT;

	if (commit && parse_metacommit(r, commit, &data, &err) > 0)
		oidcpy(content, &data.content);
	else
		oidcpy(content, oid);
	metacommit_data_clear(&data);
	strbuf_release(&err);
}

static void obslog_fill(struct repository *r, struct obslog_entry *entry,
			const struct object_id *commit, struct commit *meta,
			const struct object_id *previous)
{
	struct commit *c = meta ? meta : lookup_commit_reference_gently(r, commit, 1);

	oidcpy(&entry->commit, commit);
	if (previous)
		version_content(r, previous, &entry->previous);
	else
		oidclr(&entry->previous, r->hash_algo);
	if (c && !repo_parse_commit(r, c))
		entry->date = c->date;
	if (meta) {
		const char *buffer = repo_get_commit_buffer(r, meta, NULL);
		const char *body;
		size_t len;

		oidcpy(&entry->meta, &meta->object.oid);
		find_commit_subject(buffer, &body);
		len = strchrnul(body, '\n') - body;
		entry->operation = xmemdupz(body, len);
		repo_unuse_commit_buffer(r, meta, buffer);
	} else {
		oidclr(&entry->meta, r->hash_algo);
	}
}

/*
 * A version found by the walk of evolve_obslog(): its entry, the object
 * that stands for it in the meta graph (its metacommit, or the commit of a
 * first version), and the versions it replaced, as such objects.
 */
struct obslog_version {
	struct obslog_entry entry;
	struct object_id self;
	struct oid_array replaced;
	size_t children; /* versions that replace it and are not placed yet */
	unsigned queued:1;
};

static int obslog_newer_first(const void *a_, const void *b_,
			      void *cb_data UNUSED)
{
	const struct obslog_version *a = a_, *b = b_;

	return a->entry.date < b->entry.date ? 1 :
	       a->entry.date > b->entry.date ? -1 : 0;
}

/*
 * Order `versions` newest first, but each after every version that
 * replaces it (Kahn's algorithm, newest ready version first), and turn
 * their "replaced" objects into indices of the ordered entries.
 */
static void obslog_order(struct obslog_version *versions, size_t nr,
			 struct obslog_entry *entries)
{
	struct prio_queue ready = { .compare = obslog_newer_first };
	kh_oid_pos_t *position = kh_init_oid_pos();
	struct obslog_version *v;
	size_t placed = 0;

	for (size_t i = 0; i < nr; i++) {
		int added;
		khiter_t pos = kh_put_oid_pos(position, versions[i].self, &added);

		kh_value(position, pos) = i;
	}
	for (size_t i = 0; i < nr; i++)
		for (size_t j = 0; j < versions[i].replaced.nr; j++) {
			khiter_t pos = kh_get_oid_pos(position,
						      versions[i].replaced.oid[j]);

			if (pos != kh_end(position))
				versions[kh_value(position, pos)].children++;
		}
	for (size_t i = 0; i < nr; i++)
		if (!versions[i].children) {
			versions[i].queued = 1;
			prio_queue_put(&ready, &versions[i]);
		}

	/* First the order, remembered as each version's new position. */
	while (placed < nr) {
		struct obslog_version *newest = NULL;

		while ((v = prio_queue_get(&ready))) {
			khiter_t pos = kh_get_oid_pos(position, v->self);

			kh_value(position, pos) = placed;
			entries[placed++] = v->entry;
			for (size_t j = 0; j < v->replaced.nr; j++) {
				khiter_t p = kh_get_oid_pos(position,
							    v->replaced.oid[j]);
				struct obslog_version *older;

				if (p == kh_end(position))
					continue;
				older = &versions[kh_value(position, p)];
				if (!--older->children && !older->queued) {
					older->queued = 1;
					prio_queue_put(&ready, older);
				}
			}
		}
		if (placed == nr)
			break;

		/*
		 * What is left replaces itself in a cycle, which a commit
		 * graph cannot have, but "git replace" or a crafted
		 * metacommit can fake. Break the cycle at its newest version,
		 * placed before the versions said to replace it: the edges
		 * from those are left out below.
		 */
		for (size_t i = 0; i < nr; i++)
			if (!versions[i].queued &&
			    (!newest || versions[i].entry.date > newest->entry.date))
				newest = &versions[i];
		warning(_("the versions of the change replace each other in "
			  "a cycle; ignoring that %s was replaced"),
			oid_to_hex(&newest->self));
		newest->queued = 1;
		prio_queue_put(&ready, newest);
	}

	/* Then the edges, now that every position is known. */
	for (size_t i = 0; i < nr; i++) {
		size_t self = kh_value(position,
				       kh_get_oid_pos(position, versions[i].self));
		struct obslog_entry *entry = &entries[self];

		ALLOC_ARRAY(entry->replaces, versions[i].replaced.nr);
		for (size_t j = 0; j < versions[i].replaced.nr; j++) {
			khiter_t p = kh_get_oid_pos(position,
						    versions[i].replaced.oid[j]);

			/* An edge back to a newer entry would close a cycle. */
			if (p != kh_end(position) && (size_t)kh_value(position, p) > self)
				entry->replaces[entry->replaces_nr++] =
					kh_value(position, p);
		}
	}
	clear_prio_queue(&ready);
	kh_destroy_oid_pos(position);
}

int evolve_obslog(struct repository *r, const char *name,
		  struct obslog_entry **entries, size_t *nr, struct strbuf *err)
{
	struct oid_array queue = OID_ARRAY_INIT;
	struct oidset seen = OIDSET_INIT;
	struct strbuf scratch = STRBUF_INIT;
	struct obslog_version *versions = NULL;
	size_t versions_nr = 0, versions_alloc = 0;
	struct object_id head;

	*entries = NULL;
	*nr = 0;
	if (obslog_start(r, name, &head, err))
		return -1;

	oid_array_append(&queue, &head);
	while (queue.nr) {
		struct metacommit_data data = METACOMMIT_DATA_INIT;
		struct object_id oid = queue.oid[--queue.nr];
		struct commit *commit = lookup_commit_reference_gently(r, &oid, 1);
		struct obslog_version *v;

		if (!commit || oidset_insert(&seen, &oid))
			continue;
		ALLOC_GROW(versions, versions_nr + 1, versions_alloc);
		v = &versions[versions_nr++];
		memset(v, 0, sizeof(*v));
		oidcpy(&v->self, &oid);
		if (parse_metacommit(r, commit, &data, &scratch) <= 0) {
			/* A first version: a commit without a metacommit. */
			obslog_fill(r, &v->entry, &oid, NULL, NULL);
		} else {
			obslog_fill(r, &v->entry, &data.content, commit,
				    data.replace.nr ? &data.replace.oid[0] : NULL);
			for (size_t i = 0; i < data.replace.nr; i++) {
				oid_array_append(&v->replaced, &data.replace.oid[i]);
				oid_array_append(&queue, &data.replace.oid[i]);
			}
		}
		metacommit_data_clear(&data);
		strbuf_reset(&scratch);
	}

	CALLOC_ARRAY(*entries, versions_nr);
	*nr = versions_nr;
	obslog_order(versions, versions_nr, *entries);
	for (size_t i = 0; i < versions_nr; i++)
		oid_array_clear(&versions[i].replaced);
	free(versions);
	oid_array_clear(&queue);
	oidset_clear(&seen);
	strbuf_release(&scratch);
	return 0;
}

int obslog_rebased_tree(struct repository *r, struct commit *older,
			struct commit *newer, struct object_id *tree)
{
	struct commit *older_parent, *newer_parent;
	struct merge_options opt;
	struct merge_result result = { 0 };
	struct tree *empty = lookup_tree(r, r->hash_algo->empty_tree);
	int ret = -1;

	if (repo_parse_commit(r, older) || repo_parse_commit(r, newer))
		return -1;
	older_parent = older->parents ? older->parents->item : NULL;
	newer_parent = newer->parents ? newer->parents->item : NULL;
	if (older_parent == newer_parent) {
		oidcpy(tree, get_commit_tree_oid(older));
		return 0;
	}
	if ((older_parent && repo_parse_commit(r, older_parent)) ||
	    (newer_parent && repo_parse_commit(r, newer_parent)))
		return -1;

	init_basic_merge_options(&opt, r);
	opt.show_rename_progress = 0;
	opt.ancestor = "older parent";
	opt.branch1 = "newer parent";
	opt.branch2 = "older version";
	merge_incore_nonrecursive(&opt,
				  older_parent ? repo_get_commit_tree(r, older_parent) : empty,
				  newer_parent ? repo_get_commit_tree(r, newer_parent) : empty,
				  repo_get_commit_tree(r, older), &result);
	if (result.clean > 0) {
		oidcpy(tree, &result.tree->object.oid);
		ret = 0;
	}
	merge_finalize(&opt, &result);
	return ret;
}

/* The message of `commit`, after its header; "" if it has none. */
static const char *commit_message(const char *buffer)
{
	const char *message = strstr(buffer, "\n\n");

	return message ? message + 2 : "";
}

static int same_author(const char *a_buffer, const char *b_buffer)
{
	size_t a_len = 0, b_len = 0;
	const char *a = find_commit_header(a_buffer, "author", &a_len);
	const char *b = find_commit_header(b_buffer, "author", &b_len);

	if (!a || !b)
		return !a && !b;
	return a_len == b_len && !memcmp(a, b, a_len);
}

static int same_parents(struct commit *a, struct commit *b)
{
	struct commit_list *p = a->parents, *q = b->parents;

	for (; p && q; p = p->next, q = q->next)
		if (p->item != q->item)
			return 0;
	return !p && !q;
}

unsigned obslog_changes(struct repository *r, const struct obslog_entry *entry)
{
	struct commit *newer, *older;
	const char *newer_buffer, *older_buffer;
	struct object_id tree;
	unsigned changes = 0;

	if (is_null_oid(&entry->previous) ||
	    !(newer = lookup_commit_reference_gently(r, &entry->commit, 1)) ||
	    !(older = lookup_commit_reference_gently(r, &entry->previous, 1)) ||
	    repo_parse_commit(r, newer) || repo_parse_commit(r, older))
		return 0;

	if (!same_parents(older, newer))
		changes |= OBSLOG_CHANGED_PARENT;
	if (obslog_rebased_tree(r, older, newer, &tree) ||
	    !oideq(&tree, get_commit_tree_oid(newer)))
		changes |= OBSLOG_CHANGED_CONTENT;

	newer_buffer = repo_get_commit_buffer(r, newer, NULL);
	older_buffer = repo_get_commit_buffer(r, older, NULL);
	if (strcmp(commit_message(newer_buffer), commit_message(older_buffer)))
		changes |= OBSLOG_CHANGED_MESSAGE;
	if (!same_author(newer_buffer, older_buffer))
		changes |= OBSLOG_CHANGED_AUTHOR;
	repo_unuse_commit_buffer(r, older, older_buffer);
	repo_unuse_commit_buffer(r, newer, newer_buffer);
	return changes;
}

void obslog_entries_release(struct obslog_entry *entries, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(entries[i].operation);
		free(entries[i].replaces);
	}
	free(entries);
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
	struct evolve_item *item;

	oidmap_iter_init(&ev->items, &iter);
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
static int prune_reason(struct evolver *ev, struct evolve_item *item,
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
	load_changes(&ev);
	collect_built_on(&ev, &built_on);

	change_table_refnames(&ev.table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev.table, name->string);
		struct evolve_item *item = oidmap_get(&ev.items, &head->content);
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

struct obsolete_finder {
	struct repository *repo;
	struct content_index_cache index;
	struct strbuf err;
	struct evolver ev;
	unsigned loaded:1;
};

struct obsolete_finder *obsolete_finder_new(struct repository *r)
{
	struct obsolete_finder *finder = xcalloc(1, sizeof(*finder));

	finder->repo = r;
	strbuf_init(&finder->err, 0);
	return finder;
}

void obsolete_finder_free(struct obsolete_finder *finder)
{
	if (!finder)
		return;
	if (finder->loaded)
		evolver_release(&finder->ev);
	content_index_cache_release(&finder->index);
	strbuf_release(&finder->err);
	free(finder);
}

struct remote_version_query {
	struct repository *repo;
	const char *name;
	const struct object_id *local;
	/* The local change's earlier versions, walked when first needed. */
	struct oidset history;
	unsigned walked:1,
		 ahead:1;
};

static int remote_version_ahead_1(struct remote *remote, void *data)
{
	struct remote_version_query *query = data;
	struct strbuf refname = STRBUF_INIT;
	struct object_id oid;

	strbuf_addf(&refname, "refs/remotes/%s/metas/%s", remote->name,
		    query->name);
	if (refs_read_ref(get_main_ref_store(query->repo), refname.buf, &oid) ||
	    oideq(&oid, query->local))
		goto out;
	if (!query->walked) {
		change_history_add(query->repo, query->local, &query->history);
		query->walked = 1;
	}
	if (!oidset_contains(&query->history, &oid))
		query->ahead = 1;
out:
	strbuf_release(&refname);
	return query->ahead;
}

/*
 * Whether a remote holds the change `refname` (refs/metas/<name>, whose
 * ref holds `head`) at a version ours has not replaced: a newer one, or a
 * divergent one. A look at one ref per remote; the walk of the local
 * change's versions only when a remote holds another one, as it does
 * after every amend not pushed yet.
 */
static int remote_version_ahead(struct repository *r, const char *refname,
				const struct object_id *head)
{
	struct remote_version_query query = {
		.repo = r,
		.local = head,
		.history = OIDSET_INIT,
	};

	if (!skip_prefix(refname, CHANGES_REF_PREFIX, &query.name))
		return 0;
	for_each_remote(remote_version_ahead_1, &query);
	oidset_clear(&query.history);
	return query.ahead;
}

/*
 * Whether `commit` may be an obsolete version: the index lists it for a
 * change that is gone (renamed, deleted) or whose commit is another one,
 * or a remote holds the change that holds it at a version ours has not
 * replaced.
 */
static int may_be_obsolete(struct obsolete_finder *finder,
			   const struct object_id *commit)
{
	struct strbuf holder = STRBUF_INIT;
	struct object_id head;
	int held, moved, ret;

	held = indexed_change_of(finder->repo, &finder->index, commit, &holder,
				 &head, &moved);
	if (moved || !held)
		ret = moved;
	else
		ret = remote_version_ahead(finder->repo, holder.buf, &head);
	strbuf_release(&holder);
	return ret;
}

int obsolete_finder_lookup(struct obsolete_finder *finder,
			   const struct object_id *commit,
			   const char **change, unsigned *behind)
{
	struct obsolete_commit *obsolete;
	struct string_list_item *caught_up;

	if (!may_be_obsolete(finder, commit))
		return 0;
	if (!finder->loaded) {
		evolver_init(&finder->ev, finder->repo, &finder->err);
		load_changes(&finder->ev);
		finder->loaded = 1;
	}
	obsolete = oidmap_get(&finder->ev.obsolete, commit);
	if (!obsolete)
		return 0;
	*change = obsolete->newest->refnames.items[0].string;
	*behind = obsolete->behind;
	/* A local change behind a remote version is not there yet: name that. */
	caught_up = string_list_lookup(&finder->ev.caught_up, *change);
	if (caught_up && ((struct caught_up *)caught_up->util)->remote_refname)
		*change = ((struct caught_up *)caught_up->util)->remote_refname;
	return 1;
}

/* A version of a commit, and the versions it was made from. */
struct version_node {
	struct oidmap_entry entry;
	/* The commits it replaces or was copied from ("r" and "o" edges). */
	struct oid_array from;
};

static void free_version_node(void *p)
{
	struct version_node *node = p;

	oid_array_clear(&node->from);
	free(node);
}

/* Record the edges of the metacommit `oid` and of those it comes from. */
static void add_versions(struct repository *r, struct oidmap *versions,
			 struct oidset *seen, const struct object_id *oid)
{
	struct oid_array queue = OID_ARRAY_INIT;
	struct strbuf err = STRBUF_INIT;

	oid_array_append(&queue, oid);
	while (queue.nr) {
		struct metacommit_data data = METACOMMIT_DATA_INIT;
		struct object_id meta = queue.oid[--queue.nr];
		struct commit *commit = lookup_commit(r, &meta);
		struct version_node *node;

		if (!commit || oidset_insert(seen, &meta) ||
		    parse_metacommit(r, commit, &data, &err) <= 0)
			goto next;
		node = oidmap_get(versions, &data.content);
		if (!node) {
			node = xcalloc(1, sizeof(*node));
			oidcpy(&node->entry.oid, &data.content);
			oidmap_put(versions, node);
		}
		for (size_t i = 0; i < data.replace.nr + data.origin.nr; i++) {
			const struct object_id *from = i < data.replace.nr ?
				&data.replace.oid[i] :
				&data.origin.oid[i - data.replace.nr];
			struct object_id content;

			version_content(r, from, &content);
			oid_array_append(&node->from, &content);
			if (!oideq(&content, from))
				oid_array_append(&queue, from);
		}
	next:
		metacommit_data_clear(&data);
		strbuf_reset(&err);
	}
	oid_array_clear(&queue);
	strbuf_release(&err);
}

/* The meta graph of every change: local, remote and hidden. */
static void load_versions(struct repository *r, struct oidmap *versions)
{
	struct change_table table;
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct oidset seen = OIDSET_INIT;

	change_table_init(&table);
	change_table_add_kinds(&table, r, CHANGE_KIND_LOCAL |
			       CHANGE_KIND_REMOTE | CHANGE_KIND_HIDDEN);
	change_table_refnames(&table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&table, name->string);

		if (!oideq(&head->head, &head->content))
			add_versions(r, versions, &seen, &head->head);
	}
	oidset_clear(&seen);
	string_list_clear(&refnames, 0);
	change_table_clear(&table);
}

struct version_depth {
	struct oidmap_entry entry;
	unsigned depth;
};

/* How many versions back each earlier version of `start` is (itself: 0). */
static void earlier_versions(struct oidmap *versions,
			     const struct object_id *start, struct oidmap *depths)
{
	struct version_depth *first = xcalloc(1, sizeof(*first));
	struct oid_array queue = OID_ARRAY_INIT;
	size_t next = 0;

	oidcpy(&first->entry.oid, start);
	oidmap_put(depths, first);
	oid_array_append(&queue, start);
	while (next < queue.nr) {
		const struct object_id *oid = &queue.oid[next++];
		struct version_node *node = oidmap_get(versions, oid);
		unsigned depth = ((struct version_depth *)oidmap_get(depths, oid))->depth;

		for (size_t i = 0; node && i < node->from.nr; i++) {
			struct version_depth *d;

			if (oidmap_get(depths, &node->from.oid[i]))
				continue;
			d = xcalloc(1, sizeof(*d));
			oidcpy(&d->entry.oid, &node->from.oid[i]);
			d->depth = depth + 1;
			oidmap_put(depths, d);
			oid_array_append(&queue, &node->from.oid[i]);
		}
	}
	oid_array_clear(&queue);
}

struct commit *evolve_meta_merge_base(struct repository *r, struct commit *a,
				      struct commit *b)
{
	struct oidmap versions, from_a, from_b;
	struct oidmap_iter iter;
	struct version_depth *d;
	const struct object_id *best = NULL;
	unsigned best_depth = 0;
	struct commit *ret = NULL;

	oidmap_init(&versions, 0);
	oidmap_init(&from_a, 0);
	oidmap_init(&from_b, 0);
	load_versions(r, &versions);
	if (!oidmap_get_size(&versions))
		goto out;
	earlier_versions(&versions, &a->object.oid, &from_a);
	earlier_versions(&versions, &b->object.oid, &from_b);

	/* The version nearest to both; ties go to the smallest name. */
	oidmap_iter_init(&from_a, &iter);
	while ((d = oidmap_iter_next(&iter))) {
		struct version_depth *other = oidmap_get(&from_b, &d->entry.oid);
		unsigned depth;

		if (!other)
			continue;
		depth = d->depth + other->depth;
		if (!best || depth < best_depth ||
		    (depth == best_depth && oidcmp(&d->entry.oid, best) < 0)) {
			best = &d->entry.oid;
			best_depth = depth;
		}
	}
	if (best)
		ret = lookup_commit_reference_gently(r, best, 1);
out:
	oidmap_clear_with_free(&from_a, free);
	oidmap_clear_with_free(&from_b, free);
	oidmap_clear_with_free(&versions, free_version_node);
	return ret;
}
