/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "evolve.h"
#include "change-table.h"
#include "commit.h"
#include "gettext.h"
#include "hex.h"
#include "merge-ort.h"
#include "metacommit.h"
#include "object-name.h"
#include "oidmap.h"
#include "oidset.h"
#include "path.h"
#include "read-cache-ll.h"
#include "refs.h"
#include "replay.h"
#include "repository.h"
#include "reset.h"
#include "sequencer.h"
#include "strbuf.h"
#include "wt-status.h"

/* The content commit of one or more active changes (aliases). */
struct evolve_item {
	struct oidmap_entry entry;
	struct commit *commit;
	/* Refnames of the changes (util: their struct change_head). */
	struct string_list refnames;
	/* What the commit becomes: itself, its rebased version or a parent. */
	struct commit *result;
	enum { ITEM_PENDING, ITEM_VISITING, ITEM_DONE } state;
	unsigned abandoned:1,
		 /* result differs from commit */
		 changed:1,
		 emptied:1;
};

/* A commit made obsolete by the change(s) whose content is `newest`. */
struct obsolete_commit {
	struct oidmap_entry entry;
	struct evolve_item *newest;
	/* Another change that replaces it too, or NULL. */
	struct evolve_item *divergent;
};

struct evolver {
	struct repository *repo;
	const struct evolve_options *opts;
	struct change_table table;
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
};

void evolve_result_release(struct evolve_result *result)
{
	for (size_t i = 0; i < result->steps_nr; i++) {
		string_list_clear(&result->steps[i].refnames, 0);
		free(result->steps[i].onto);
	}
	free(result->steps);
	string_list_clear(&result->moved_refs, 0);
}

static void free_item(void *p)
{
	struct evolve_item *item = p;

	string_list_clear(&item->refnames, 0);
	free(item);
}

static void load_items(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_DUP;
	struct string_list_item *name;

	change_table_add_all_visible(&ev->table, ev->repo);
	change_table_refnames(&ev->table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev->table, name->string);
		struct evolve_item *item;

		if (!head || head->hidden || head->remote)
			continue;
		item = oidmap_get(&ev->items, &head->content);
		if (!item) {
			item = xcalloc(1, sizeof(*item));
			oidcpy(&item->entry.oid, &head->content);
			item->commit = lookup_commit(ev->repo, &head->content);
			string_list_init_dup(&item->refnames);
			oidmap_put(&ev->items, item);
		}
		string_list_append(&item->refnames, name->string)->util = head;
		if (head->abandoned)
			item->abandoned = 1;
	}
	string_list_clear(&refnames, 0);
}

static void mark_obsolete(struct evolver *ev, const struct object_id *oid,
			  struct evolve_item *newest)
{
	struct obsolete_commit *obsolete;

	/* The content of any change is never obsolete. */
	if (oidmap_get(&ev->items, oid))
		return;
	obsolete = oidmap_get(&ev->obsolete, oid);
	if (!obsolete) {
		obsolete = xcalloc(1, sizeof(*obsolete));
		oidcpy(&obsolete->entry.oid, oid);
		obsolete->newest = newest;
		oidmap_put(&ev->obsolete, obsolete);
	} else if (obsolete->newest != newest && !obsolete->divergent) {
		obsolete->divergent = newest;
	}
}

/*
 * Mark as obsolete every commit reachable from the head of a change of
 * `item` through "replaces" edges.
 */
static void mark_history_obsolete(struct evolver *ev, struct evolve_item *item,
				  const struct change_head *head)
{
	struct oid_array queue = OID_ARRAY_INIT;
	struct oidset seen = OIDSET_INIT;
	struct strbuf err = STRBUF_INIT;

	if (!oideq(&head->head, &head->content))
		oid_array_append(&queue, &head->head);
	while (queue.nr) {
		struct metacommit_data data = METACOMMIT_DATA_INIT;
		struct object_id oid = queue.oid[--queue.nr];
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
				mark_obsolete(ev, &old.content, item);
				oid_array_append(&queue, replaced);
			} else {
				mark_obsolete(ev, replaced, item);
			}
			metacommit_data_clear(&old);
		}
	next:
		metacommit_data_clear(&data);
		strbuf_reset(&err);
	}
	oid_array_clear(&queue);
	oidset_clear(&seen);
	strbuf_release(&err);
}

/* The name of the (first) change of `item`, as users write it: "metas/foo". */
static const char *item_name(struct evolve_item *item)
{
	const char *name = item->refnames.items[0].string;

	skip_prefix(name, "refs/", &name);
	return name;
}

static char *describe_onto(struct evolver *ev, struct evolve_item *onto_item,
			   struct commit *onto)
{
	const char *name = NULL;

	if (onto_item && onto_item->result == onto &&
	    !onto_item->emptied && !onto_item->abandoned) {
		name = item_name(onto_item);
	} else {
		/* e.g. the parent of an abandoned change */
		onto_item = oidmap_get(&ev->items, &onto->object.oid);
		name = onto_item && onto_item->result == onto ?
			item_name(onto_item) : NULL;
	}
	if (name)
		return xstrdup(name);
	return xstrdup(repo_find_unique_abbrev(ev->repo, &onto->object.oid,
					       DEFAULT_ABBREV));
}

static struct evolve_step *add_step(struct evolver *ev,
				    enum evolve_step_type type,
				    struct evolve_item *item, char *onto)
{
	struct evolve_result *result = ev->result;
	struct evolve_step *step;
	struct string_list_item *name;

	ALLOC_GROW(result->steps, result->steps_nr + 1, result->steps_alloc);
	step = &result->steps[result->steps_nr++];
	step->type = type;
	string_list_init_dup(&step->refnames);
	for_each_string_list_item(name, &item->refnames)
		string_list_append(&step->refnames, name->string);
	step->onto = onto;
	return step;
}

static int visit(struct evolver *ev, struct evolve_item *item);

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
			strbuf_addf(ev->err,
				    _("commit %s is replaced by both %s and %s (divergence)"),
				    repo_find_unique_abbrev(ev->repo, &commit->object.oid,
							    DEFAULT_ABBREV),
				    item_name(obsolete->newest),
				    item_name(obsolete->divergent));
			return NULL;
		}
		*item = obsolete->newest;
		*changed = 1;
	} else {
		*item = oidmap_get(&ev->items, &commit->object.oid);
		if (!*item)
			return commit;
	}
	if (visit(ev, *item))
		return NULL;
	if ((*item)->changed)
		*changed = 1;
	return (*item)->result;
}

static int report_conflict(struct evolver *ev, struct evolve_item *item,
			   const char *onto)
{
	struct string_list paths = STRING_LIST_INIT_NODUP;
	struct string_list_item *path;

	strbuf_addf(ev->err, _("could not rebase %s onto %s: conflict"),
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

/* Rebase the content of `item` onto `onto`, in memory. */
static int pick(struct evolver *ev, struct evolve_item *item,
		struct commit *onto, char *onto_name)
{
	struct commit *picked;

	if (!ev->merging) {
		init_basic_merge_options(&ev->merge_opt, ev->repo);
		ev->merge_opt.show_rename_progress = 0;
		ev->merge_result.clean = 1;
		ev->merging = 1;
	}
	picked = replay_pick_commit(ev->repo, item->commit, onto, &ev->merge_opt,
				    &ev->merge_result, REPLAY_EMPTY_COMMIT_DROP);
	if (!picked) {
		report_conflict(ev, item, onto_name);
		free(onto_name);
		return -1;
	}
	if (picked == onto) {
		item->emptied = 1;
		add_step(ev, EVOLVE_STEP_DELETE_EMPTY, item, onto_name);
	} else {
		ALLOC_GROW(ev->rewrites, ev->rewrites_nr + 1, ev->rewrites_alloc);
		oidcpy(&ev->rewrites[ev->rewrites_nr].old, &item->commit->object.oid);
		oidcpy(&ev->rewrites[ev->rewrites_nr].new, &picked->object.oid);
		ev->rewrites_nr++;
		add_step(ev, EVOLVE_STEP_REBASE, item, onto_name);
	}
	item->result = picked;
	return 0;
}

static int visit(struct evolver *ev, struct evolve_item *item)
{
	struct commit *parent, *onto;
	struct evolve_item *onto_item;
	int changed = 0;

	if (item->state == ITEM_DONE)
		return 0;
	if (item->state == ITEM_VISITING) {
		strbuf_addf(ev->err, _("the changes form a cycle at %s"),
			    item_name(item));
		return -1;
	}
	item->state = ITEM_VISITING;
	item->result = item->commit;

	if (repo_parse_commit(ev->repo, item->commit)) {
		strbuf_addf(ev->err, _("could not parse commit of %s"),
			    item_name(item));
		return -1;
	}
	parent = item->commit->parents ? item->commit->parents->item : NULL;

	if (parent && parent != item->commit && item->commit->parents->next) {
		/* A merge: only fine if none of its parents moves. */
		for (struct commit_list *p = item->commit->parents; p; p = p->next)
			if (!resolve(ev, p->item, &changed, &onto_item))
				return -1;
		if (changed) {
			strbuf_addf(ev->err, _("cannot rebase merge commit %s yet"),
				    item_name(item));
			return -1;
		}
	} else if (parent) {
		onto = resolve(ev, parent, &changed, &onto_item);
		if (!onto)
			return -1;
		if (item->abandoned) {
			/* Drop it: its children go onto its parent. */
			item->result = onto;
			item->changed = 1;
			add_step(ev, EVOLVE_STEP_DROP_ABANDONED, item,
				 describe_onto(ev, onto_item, onto));
		} else if (changed) {
			item->changed = 1;
			if (ev->opts->dry_run)
				add_step(ev, EVOLVE_STEP_REBASE, item,
					 describe_onto(ev, onto_item, onto));
			else if (pick(ev, item, onto,
				      describe_onto(ev, onto_item, onto)))
				return -1;
		}
	}
	item->state = ITEM_DONE;
	return 0;
}

static int visit_all(struct evolver *ev)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	int ret = 0;

	change_table_refnames(&ev->table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev->table, name->string);
		struct evolve_item *item;

		if (!head || !(item = oidmap_get(&ev->items, &head->content)))
			continue;
		mark_history_obsolete(ev, item, head);
	}
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&ev->table, name->string);
		struct evolve_item *item;

		if (!head || !(item = oidmap_get(&ev->items, &head->content)))
			continue;
		if (visit(ev, item)) {
			ret = -1;
			break;
		}
	}
	string_list_clear(&refnames, 0);
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
};

/* Where a ref at `oid` must go, or NULL if it stays. */
static struct commit *follow(struct evolver *ev, const struct object_id *oid,
			     int *failed)
{
	struct commit *commit = lookup_commit_reference_gently(ev->repo, oid, 1);
	struct evolve_item *item;
	struct commit *to;
	int changed = 0;

	if (!commit)
		return NULL;
	to = resolve(ev, commit, &changed, &item);
	if (!to)
		*failed = 1;
	if (!to || !changed || to == commit)
		return NULL;
	return to;
}

static int follow_branch(const struct reference *ref, void *cb_data)
{
	struct follow_cb *cb = cb_data;
	struct commit *to;

	if (ref->flags & REF_ISSYMREF)
		return 0;
	to = follow(cb->ev, ref->oid, &cb->failed);
	if (cb->failed)
		return -1;
	if (!to)
		return 0;
	string_list_append(&cb->ev->result->moved_refs, ref->name);
	if (cb->head_branch && !strcmp(ref->name, cb->head_branch)) {
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

static void add_deletions(struct evolver *ev, struct follow_cb *cb)
{
	for (size_t i = 0; i < ev->result->steps_nr; i++) {
		struct evolve_step *step = &ev->result->steps[i];
		struct string_list_item *name;

		if (step->type != EVOLVE_STEP_DELETE_EMPTY)
			continue;
		for_each_string_list_item(name, &step->refnames) {
			struct change_head *head = change_table_get(&ev->table,
								    name->string);

			ALLOC_GROW(cb->moves, cb->moves_nr + 1, cb->moves_alloc);
			cb->moves[cb->moves_nr].refname = xstrdup(name->string);
			oidcpy(&cb->moves[cb->moves_nr].old, &head->head);
			oidclr(&cb->moves[cb->moves_nr].new, ev->repo->hash_algo);
			cb->moves_nr++;
		}
	}
}

/* The changes whose content evolve rewrites, for the ref transaction. */
static void known_changes(struct evolver *ev, struct string_list *out)
{
	for (size_t i = 0; i < ev->rewrites_nr; i++) {
		struct evolve_item *item = oidmap_get(&ev->items,
						      &ev->rewrites[i].old);
		struct string_list_item *name;

		for_each_string_list_item(name, &item->refnames)
			string_list_append(out, name->string)->util = name->util;
	}
}

static int update_head(struct evolver *ev, struct follow_cb *cb)
{
	struct reset_head_opts opts = {
		.oid = &cb->head_new,
		.default_reflog_action = "evolve",
	};
	char *autostash = repo_git_path(ev->repo, "evolve-autostash");
	int ret;

	if (repo_read_index(ev->repo) < 0) {
		free(autostash);
		strbuf_addstr(ev->err, _("could not read the index"));
		return -1;
	}
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
	struct object_id head_oid;
	const char *head_ref;
	int head_flags = 0, ret = -1;

	head_ref = refs_resolve_ref_unsafe(refs, "HEAD", 0, &head_oid, &head_flags);
	if (head_ref && (head_flags & REF_ISSYMREF))
		cb.head_branch = head_ref;
	else if (head_ref) {
		struct commit *to = follow(ev, &head_oid, &cb.failed);

		if (to) {
			oidcpy(&cb.head_new, &to->object.oid);
			cb.head_moves = 1;
		}
	}
	if (cb.failed ||
	    refs_for_each_ref_ext(refs, follow_branch, &cb, &opts) || cb.failed)
		goto out;
	add_deletions(ev, &cb);

	if (ev->opts->dry_run) {
		ret = 0;
		goto out;
	}

	known_changes(ev, &changes);
	if (record_rewrites_and_move_refs(ev->repo, &changes, ev->rewrites,
					  ev->rewrites_nr, cb.moves, cb.moves_nr,
					  "evolve", ev->err))
		goto out;
	ret = cb.head_moves ? update_head(ev, &cb) : 0;

out:
	string_list_clear(&changes, 0);
	for (size_t i = 0; i < cb.moves_nr; i++)
		free((char *)cb.moves[i].refname);
	free(cb.moves);
	return ret;
}

int evolve_changes(struct repository *r, const struct evolve_options *opts,
		   struct evolve_result *result, struct strbuf *err)
{
	struct evolver ev = {
		.repo = r,
		.opts = opts,
		.result = result,
		.err = err,
	};
	int ret;

	change_table_init(&ev.table);
	oidmap_init(&ev.items, 0);
	oidmap_init(&ev.obsolete, 0);

	load_items(&ev);
	ret = visit_all(&ev);
	if (!ret)
		ret = write_results(&ev);

	if (ev.merging)
		merge_finalize(&ev.merge_opt, &ev.merge_result);
	free(ev.rewrites);
	oidmap_clear_with_free(&ev.items, free_item);
	oidmap_clear(&ev.obsolete, 1);
	change_table_clear(&ev.table);
	return ret;
}
