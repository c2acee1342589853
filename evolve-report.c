/*
 * What commands say about changes after they ran (see evolve-report.h):
 * the walk above rewritten commits that counts orphans, the hints of
 * commit, rebase and fetch about orphans, divergence and newer versions,
 * what they note for "git status" and "git evolve", and forgetting it
 * once an evolve leaves nothing to do.
 */
/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "evolve-report.h"
#include "advice.h"
#include "change-graph.h"
#include "change-id.h"
#include "change-notes.h"
#include "change-writer.h"
#include "commit-graph.h"
#include "commit-reach.h"
#include "commit-slab.h"
#include "commit.h"
#include "evolve-merge.h"
#include "gettext.h"
#include "hex.h"
#include "object-name.h"
#include "oidset.h"
#include "path.h"
#include "prio-queue.h"
#include "refs.h"
#include "repository.h"
#include "revision.h"
#include "strbuf.h"
#include "strmap.h"
#include "trace2.h"

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

/* Whether the version fetched is `content` made again (change_same_version()). */
static int same_fetched_version(struct repository *r, const char *remote_refname,
				const struct object_id *fetched,
				const struct object_id *content)
{
	struct object_id theirs;
	struct commit *a, *b;

	oidcpy(&theirs, fetched);
	peel_change_head(r, remote_refname, &theirs);
	a = lookup_commit_reference_gently(r, content, 1);
	b = lookup_commit_reference_gently(r, &theirs, 1);
	return a && b && change_same_version(r, a, b);
}

/*
 * What a fetch has to say, one hint per advice setting, so that "Disable
 * this message" is said once however many changes the fetch brought.
 * NULL when the fetch is quiet.
 */
struct fetch_hints {
	struct strbuf orphans;		/* ADVICE_EVOLVE_ORPHANS */
	struct strbuf divergence;	/* ADVICE_EVOLVE_DIVERGENCE */
};

__attribute__((format (printf, 3, 4)))
static void add_fetch_hint(struct fetch_hints *hints, enum advice_type type,
			   const char *fmt, ...)
{
	struct strbuf *hint;
	va_list ap;

	if (!hints)
		return;
	hint = type == ADVICE_EVOLVE_DIVERGENCE ? &hints->divergence :
		&hints->orphans;
	if (hint->len)
		strbuf_addch(hint, '\n');
	va_start(ap, fmt);
	strbuf_vaddf(hint, fmt, ap);
	va_end(ap);
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
				  struct object_id *behind,
				  struct fetch_hints *hints)
{
	const char *remote = remote_refname + strlen("refs/remotes/");
	struct strbuf local = STRBUF_INIT;
	struct object_id head;
	int ret = 0;

	strbuf_add_local_change_refname(&local, name);
	if (refs_read_ref(get_main_ref_store(r), local.buf, &head) ||
	    oideq(&head, fetched))
		goto out;
	if (oidset_contains(history, &head)) {
		add_fetch_hint(hints, ADVICE_EVOLVE_ORPHANS,
			       _("metas/%s is behind %s, which amends it; run \"git evolve\" to take that version."),
			       name, remote);
		oidcpy(behind, &head);
		peel_change_head(r, local.buf, behind);
		ret = 1;
	} else {
		struct oidset ours = OIDSET_INIT;
		struct object_id content;

		oidcpy(&content, &head);
		peel_change_head(r, local.buf, &content);
		change_history_add(r, &head, &ours);
		if (!oideq(&content, &head) &&
		    (oidset_contains(history, &content) ||
		     same_fetched_version(r, remote_refname, fetched,
					  &content))) {
			/*
			 * Ours is a version that theirs amends (say, one
			 * evolve joined to theirs before), or theirs made
			 * again: evolve joins it to theirs, no merge.
			 */
			add_fetch_hint(hints, ADVICE_EVOLVE_ORPHANS,
				       _("metas/%s adds nothing to %s; run \"git evolve\" to take that version."),
				       name, remote);
			oidcpy(behind, &content);
			ret = 1;
		} else if (versions_diverge(&head, &ours, fetched, history)) {
			note_divergent(r, local.buf, remote_refname);
			add_fetch_hint(hints, ADVICE_EVOLVE_DIVERGENCE,
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
			      struct fetch_hints *hints)
{
	const char *name = local + strlen("refs/");
	const char *abbrev = repo_find_unique_abbrev(r, &fetched->object.oid,
						     DEFAULT_ABBREV);
	const struct object_id *newer;
	struct object_id head;
	const char *via;

	if (refs_read_ref(get_main_ref_store(r), local, &head))
		return;
	newer = noted_newer_of(r, noted, local, &head);
	if (fetched_over_version(r, moves, nr, content, newer, fetched, &via)) {
		note_newer(r, local, &fetched->object.oid, &head);
		if (!oid_array_readonly_contains(behind, content))
			oid_array_append(behind, content);
		if (!skip_prefix(via, "refs/remotes/", &via))
			skip_prefix(via, "refs/", &via);
		add_fetch_hint(hints, ADVICE_EVOLVE_ORPHANS,
			       _("%s is behind %s, fetched into %s with its change id; run \"git evolve\" to take that version."),
			       name, abbrev, via);
		return;
	}
	note_divergent(r, local, oid_to_hex(&fetched->object.oid));
	add_fetch_hint(hints, ADVICE_EVOLVE_DIVERGENCE,
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
			       struct oid_array *behind,
			       struct fetch_hints *hints)
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
				read_noted_newer(r, &noted);
			report_fetched_id(r, moves, nr, &noted, holder->string,
					  holder->util, commit, behind, hints);
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
	struct fetch_hints said = {
		.orphans = STRBUF_INIT,
		.divergence = STRBUF_INIT,
	};
	struct fetch_hints *hints = quiet ? NULL : &said;
	int count;

	if (!repo_changes_enabled(r))
		return;
	index_fetched_changes(r, moves, nr);
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
					   hints) &&
		    !oid_array_readonly_contains(&replaced, &commit))
			oid_array_append(&replaced, &commit);
		oidset_clear(&history);
	}
	report_fetched_ids(r, moves, nr, &fetched_versions, &replaced, hints);
	count = replaced.nr ? evolve_count_orphans_above(r, &replaced) : 0;
	if (count) {
		note_orphaned(r, &replaced);
		add_fetch_hint(hints, ADVICE_EVOLVE_ORPHANS,
			       Q_("%d change is built on a version that was amended since; run \"git evolve\" to rebase it.",
				  "%d changes are built on versions that were amended since; run \"git evolve\" to rebase them.",
				  count),
			       count);
	}
	if (said.orphans.len)
		advise_if_enabled(ADVICE_EVOLVE_ORPHANS, "%s", said.orphans.buf);
	if (said.divergence.len)
		advise_if_enabled(ADVICE_EVOLVE_DIVERGENCE, "%s",
				  said.divergence.buf);
	strbuf_release(&said.orphans);
	strbuf_release(&said.divergence);
	oidset_clear(&fetched_versions);
	oid_array_clear(&replaced);
}

void forget_orphaned(struct repository *r)
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

void forget_divergent(struct repository *r)
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
