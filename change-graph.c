/*
 * The read-only change graph (see change-graph.h): loading every change
 * once, finding the commits they make obsolete and the changes behind a
 * newer version (fetched, or noted newer by change id), and the queries
 * built on that: the commits without a change that evolve carries along,
 * children and newest parent (next/prev), states (change list),
 * divergence, obslog, the obsolete finder of "log --decorate" and the
 * merge base of versions.
 */
/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "change-graph.h"
#include "change-id.h"
#include "change-notes.h"
#include "change-peel.h"
#include "change-writer.h"
#include "commit-reach.h"
#include "commit.h"
#include "gettext.h"
#include "hex.h"
#include "khash.h"
#include "merge-ort.h"
#include "object-name.h"
#include "odb.h"
#include "oidset.h"
#include "prio-queue.h"
#include "refs.h"
#include "remote.h"
#include "repository.h"
#include "revision.h"
#include "strbuf.h"
#include "strmap.h"
#include "trace2.h"
#include "tree.h"

void change_graph_init(struct change_graph *graph, struct repository *r)
{
	memset(graph, 0, sizeof(*graph));
	graph->repo = r;
	change_table_init(&graph->table);
	change_table_init(&graph->remote_table);
	string_list_init_dup(&graph->caught_up);
	oidmap_init(&graph->items, 0);
	oidmap_init(&graph->obsolete, 0);
	oidset_init(&graph->not_carried, 0);
}

static void free_item(void *p)
{
	struct change_node *item = p;

	string_list_clear(&item->refnames, 0);
	free(item->carried);
	free(item);
}

void change_graph_release(struct change_graph *graph)
{
	struct string_list_item *caught_up;

	oidmap_clear_with_free(&graph->items, free_item);
	oidmap_clear(&graph->obsolete, 1);
	change_table_clear(&graph->table);
	change_table_clear(&graph->remote_table);
	for_each_string_list_item(caught_up, &graph->caught_up) {
		free(((struct caught_up *)caught_up->util)->remote_refname);
		free(((struct caught_up *)caught_up->util)->fetched_name);
	}
	string_list_clear(&graph->caught_up, 1);
	oidset_clear(&graph->not_carried);
	free(graph->published);
	if (graph->shows_moved)
		change_peel_cache_drop(graph->peel);
	else
		change_peel_cache_release(graph->peel, 1);
	graph->peel = NULL;
}

int indexed_change_of(struct repository *r,
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

char *name_change_commit(struct repository *r, const struct object_id *commit)
{
	struct strbuf refname = STRBUF_INIT;

	if (indexed_change_of(r, NULL, commit, &refname, NULL, NULL)) {
		char *ret = xstrdup(refname.buf + strlen("refs/"));

		strbuf_release(&refname);
		return ret;
	}
	return xstrdup(repo_find_unique_abbrev(r, commit, DEFAULT_ABBREV));
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

int versions_diverge(const struct object_id *a,
		     const struct oidset *history_a,
		     const struct object_id *b,
		     const struct oidset *history_b)
{
	return !oideq(a, b) &&
		!oidset_contains(history_a, b) &&
		!oidset_contains(history_b, a) &&
		histories_meet(history_a, history_b);
}

int changes_diverge(struct repository *r, const char *a, const char *b)
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

int fetched_version_diverges(struct repository *r, const char *local,
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
 * The commit noted newer than the local change `local` (at `head`) that
 * still is: the change has not moved since, and the commit still has
 * the change id of its commit without replacing it or being replaced by
 * it. Returns it, or NULL.
 */
const struct object_id *noted_newer_of(struct repository *r,
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

	read_noted_newer(r, &noted);
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

void noted_divergent(struct repository *r,
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

static struct change_node *change_graph_node(struct change_graph *graph,
					     const struct object_id *content)
{
	struct change_node *item = oidmap_get(&graph->items, content);

	if (!item) {
		CALLOC_ARRAY(item, 1);
		oidcpy(&item->entry.oid, content);
		item->commit = lookup_commit(graph->repo, content);
		/* The tables' own refnames, which outlive the nodes. */
		string_list_init_nodup(&item->refnames);
		/* Most commits have one change: room for one name. */
		ALLOC_ARRAY(item->refnames.items, 1);
		item->refnames.alloc = 1;
		oidmap_put(&graph->items, item);
	}
	return item;
}

struct change_head *change_graph_local_head(struct change_graph *graph,
					    const char *refname)
{
	struct string_list_item *caught_up =
		string_list_lookup(&graph->caught_up, refname);

	if (caught_up)
		return &((struct caught_up *)caught_up->util)->head;
	return change_table_get(&graph->table, refname);
}

struct caught_up *change_graph_caught_up_by_id(struct change_graph *graph,
					       const char *refname)
{
	struct string_list_item *entry =
		string_list_lookup(&graph->caught_up, refname);
	struct caught_up *caught_up = entry ? entry->util : NULL;

	return caught_up && !caught_up->remote_refname ? caught_up : NULL;
}

/*
 * Find the local changes that are behind the remote change of the same
 * name: the local head is in the history of the remote one. Each
 * remote-tracking ref of that name is tried in turn, so a change follows
 * the newest of them when one remote's version descends from another's.
 */
static void catch_up_with_remotes(struct change_graph *graph)
{
	struct string_list remote_refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct strbuf local = STRBUF_INIT;

	change_table_refnames(&graph->remote_table, &remote_refnames);
	for_each_string_list_item(name, &remote_refnames) {
		struct change_head *remote =
			change_table_get(&graph->remote_table, name->string);
		struct change_head *head;
		struct oidset history = OIDSET_INIT;
		struct string_list_item *entry;
		struct caught_up *caught_up;

		strbuf_reset(&local);
		strbuf_add_local_change_refname(&local,
						remote_change_name(name->string));
		head = change_graph_local_head(graph, local.buf);
		/* What the user abandoned stays abandoned. */
		if (!remote || remote->abandoned || !head || head->abandoned ||
		    oideq(&head->head, &remote->head))
			continue;
		change_history_add(graph->repo, &remote->head, &history);
		if (oidset_contains(&history, &head->head)) {
			entry = string_list_insert(&graph->caught_up,
						   local.buf);
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
static void catch_up_by_id(struct change_graph *graph)
{
	struct string_list noted = STRING_LIST_INIT_DUP;
	struct string_list_item *entry;

	read_noted_newer(graph->repo, &noted);
	for_each_string_list_item(entry, &noted) {
		struct change_head *head = change_table_get(&graph->table,
							    entry->string);
		const struct object_id *fetched;
		struct caught_up *caught_up;

		if (!head || head->hidden || head->remote || head->abandoned ||
		    string_list_lookup(&graph->caught_up, entry->string) ||
		    !(fetched = noted_newer_of(graph->repo, &noted,
					       entry->string, &head->head)))
			continue;
		CALLOC_ARRAY(caught_up, 1);
		caught_up->was = *head;
		oidcpy(&caught_up->old, &head->head);
		caught_up->head = *head;
		oidcpy(&caught_up->head.content, fetched);
		caught_up->fetched_name =
			xstrdup(repo_find_unique_abbrev(graph->repo, fetched,
							DEFAULT_ABBREV));
		string_list_insert(&graph->caught_up, entry->string)->util =
			caught_up;
	}
	string_list_clear(&noted, 1);
}

/* Give each change of the tables its item, once they are filled. */
static void load_items(struct change_graph *graph)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;

	catch_up_with_remotes(graph);
	catch_up_by_id(graph);
	change_table_refnames(&graph->table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_graph_local_head(graph,
								   name->string);
		struct change_node *item;

		if (!head || head->hidden || head->remote)
			continue;
		item = change_graph_node(graph, &head->content);
		string_list_append(&item->refnames, name->string)->util = head;
		if (head->abandoned)
			item->abandoned = 1;
	}
	string_list_clear(&refnames, 0);
}

static void change_graph_mark_obsolete(struct change_graph *graph,
				       const struct object_id *oid,
				       struct change_node *newest,
				       unsigned behind)
{
	struct obsolete_commit *obsolete;
	struct change_node *item = oidmap_get(&graph->items, oid);

	/*
	 * The content of any change is never obsolete: nothing based on it
	 * is an orphan. But the change itself is stale, and may be pruned.
	 */
	if (item) {
		if (item != newest)
			item->superseded = 1;
		return;
	}
	obsolete = oidmap_get(&graph->obsolete, oid);
	if (!obsolete) {
		obsolete = xcalloc(1, sizeof(*obsolete));
		oidcpy(&obsolete->entry.oid, oid);
		obsolete->newest = newest;
		obsolete->behind = behind;
		oidmap_put(&graph->obsolete, obsolete);
	} else if (obsolete->newest != newest && !obsolete->divergent) {
		obsolete->divergent = newest;
	} else if (obsolete->newest == newest && behind < obsolete->behind) {
		obsolete->behind = behind;
	}
}

struct mark_obsolete_cb {
	struct change_graph *graph;
	struct change_node *item;
};

static void mark_obsolete_cb(const struct object_id *oid, unsigned behind,
			     void *data)
{
	struct mark_obsolete_cb *cb = data;

	change_graph_mark_obsolete(cb->graph, oid, cb->item, behind);
}

/*
 * Mark as obsolete every commit reachable from the head of a change of
 * `item` through "replaces" edges: from the cache of what heads are when
 * it knows the head (or can learn it), else from the objects.
 */
static void mark_history_obsolete(struct change_graph *graph,
				  struct change_node *item,
				  const struct change_head *head)
{
	struct mark_obsolete_cb cb = {
		.graph = graph,
		.item = item,
	};
	struct change_head_facts facts;

	if (graph->peel &&
	    !change_peel_cache_facts(graph->peel, &head->head, &facts))
		change_head_facts_obsolete(graph->peel, &facts,
					   mark_obsolete_cb, &cb);
	else
		change_history_obsolete(graph->repo, &head->head,
					mark_obsolete_cb, &cb);
}

/*
 * The versions fetched from remotes count as local ones do: a commit
 * that a remote change replaced is obsolete, and what is built on it
 * goes onto the remote version. Only the newest of them get an item: a
 * remote version that a local change or another remote version replaced
 * is history, as are those that a local change already holds.
 */
static void add_remote_versions(struct change_graph *graph)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;
	struct oidset below = OIDSET_INIT;

	change_table_refnames(&graph->remote_table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head =
			change_table_get(&graph->remote_table, name->string);

		if (head && !head->abandoned)
			change_history_add(graph->repo, &head->head, &below);
	}
	for_each_string_list_item(name, &refnames) {
		struct change_head *head =
			change_table_get(&graph->remote_table, name->string);
		struct change_node *item;

		if (!head || head->abandoned ||
		    oidset_contains(&below, &head->head) ||
		    oidset_contains(&below, &head->content) ||
		    oidmap_get(&graph->obsolete, &head->content) ||
		    oidmap_get(&graph->items, &head->content))
			continue;
		item = change_graph_node(graph, &head->content);
		item->remote = 1;
		string_list_append(&item->refnames, name->string)->util = head;
		mark_history_obsolete(graph, item, head);
	}
	oidset_clear(&below);
	string_list_clear(&refnames, 0);
}

/*
 * A change caught up by id (catch_up_by_id()) is at a version whose
 * history does not hold the change's commit yet: that commit is
 * obsolete too, replaced by `item`.
 */
static void mark_caught_up_by_id(struct change_graph *graph,
				 struct change_node *item,
				 const char *refname)
{
	struct caught_up *caught_up = change_graph_caught_up_by_id(graph,
								   refname);

	if (caught_up)
		change_graph_mark_obsolete(graph, &caught_up->was.content,
					   item, 1);
}

/* Find the commits that the changes of the filled tables make obsolete. */
static void load_from_tables(struct change_graph *graph)
{
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;

	load_items(graph);
	change_table_refnames(&graph->table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_graph_local_head(graph,
								   name->string);
		struct change_node *item =
			head ? oidmap_get(&graph->items, &head->content) : NULL;

		if (!item)
			continue;
		mark_history_obsolete(graph, item, head);
		mark_caught_up_by_id(graph, item, name->string);
	}
	string_list_clear(&refnames, 0);
	add_remote_versions(graph);
}

void change_graph_show_moved(struct change_graph *graph,
			     struct strmap *moved)
{
	change_table_show_moved(&graph->table, moved);
	change_table_show_moved(&graph->remote_table, moved);
	graph->shows_moved = !!strmap_get_size(moved);
}

void change_graph_load(struct change_graph *graph)
{
	/*
	 * Costs every change: tests check which commands avoid it, by the
	 * name of this region, which it kept when it moved from evolve.c.
	 */
	trace2_region_enter("evolve", "load_changes", graph->repo);
	graph->peel = change_peel_cache_load(graph->repo);
	change_peel_cache_serve(graph->peel, &graph->table);
	change_peel_cache_serve(graph->peel, &graph->remote_table);
	change_table_add_all_visible(&graph->table, graph->repo);
	change_table_add_kinds(&graph->remote_table, graph->repo,
			       CHANGE_KIND_REMOTE);
	load_from_tables(graph);
	trace2_region_leave("evolve", "load_changes", graph->repo);
}

struct add_remote_ref_cb {
	struct change_graph *graph;
	const char *name;
	struct strbuf refname;
};

static int add_remote_ref(struct remote *remote, void *data)
{
	struct add_remote_ref_cb *cb = data;

	strbuf_reset(&cb->refname);
	strbuf_addf(&cb->refname, "refs/remotes/%s/metas/%s", remote->name,
		    cb->name);
	change_table_add_ref(&cb->graph->remote_table, cb->graph->repo,
			     cb->refname.buf);
	return 0;
}

void change_graph_load_changes(struct change_graph *graph,
			       const struct string_list *refnames)
{
	struct add_remote_ref_cb cb = {
		.graph = graph,
		.refname = STRBUF_INIT,
	};
	const struct string_list_item *item;
	struct strbuf local = STRBUF_INIT;

	/*
	 * A few heads: read from the objects, which costs less than
	 * loading the cache of what every head is.
	 */
	trace2_region_enter("evolve", "load_some_changes", graph->repo);
	for_each_string_list_item(item, refnames) {
		if ((cb.name = remote_change_name(item->string))) {
			/* Its remote may be gone from the configuration. */
			change_table_add_ref(&graph->remote_table, graph->repo,
					     item->string);
		} else if (!skip_prefix(item->string, CHANGES_REF_PREFIX,
					&cb.name)) {
			continue;
		}
		/* The local change of that name may have replaced it. */
		strbuf_reset(&local);
		strbuf_add_local_change_refname(&local, cb.name);
		change_table_add_ref(&graph->table, graph->repo, local.buf);
		for_each_remote(add_remote_ref, &cb);
	}
	load_from_tables(graph);
	strbuf_release(&local);
	strbuf_release(&cb.refname);
	trace2_region_leave("evolve", "load_some_changes", graph->repo);
}

const char *change_node_name(struct change_node *item)
{
	const char *name;

	if (item->carried)
		return item->carried;
	name = item->refnames.items[0].string;
	if (!skip_prefix(name, "refs/remotes/", &name))
		skip_prefix(name, "refs/", &name);
	return name;
}

int evolve_children(struct repository *r, struct commit *commit,
		    struct string_list *out)
{
	struct change_graph graph;
	struct string_list refnames = STRING_LIST_INIT_NODUP;
	struct string_list_item *name;

	change_graph_init(&graph, r);
	change_graph_load(&graph);
	change_table_refnames(&graph.table, &refnames);
	for_each_string_list_item(name, &refnames) {
		struct change_head *head = change_table_get(&graph.table,
							    name->string);
		struct change_node *item = head ?
			oidmap_get(&graph.items, &head->content) : NULL;
		struct obsolete_commit *obsolete;
		struct commit *parent;

		/* Each commit once, under the first name of its change. */
		if (!item || item->abandoned ||
		    strcmp(item->refnames.items[0].string, name->string) ||
		    repo_parse_commit(r, item->commit) || !item->commit->parents)
			continue;
		parent = item->commit->parents->item;
		obsolete = oidmap_get(&graph.obsolete, &parent->object.oid);
		if (parent == commit ||
		    (obsolete && obsolete->newest->commit == commit))
			string_list_append(out, name->string)->util = item->commit;
	}
	string_list_clear(&refnames, 0);
	change_graph_release(&graph);
	return 0;
}

struct commit *evolve_newest_parent(struct repository *r, struct commit *commit,
				    struct strbuf *err)
{
	struct change_graph graph;
	struct obsolete_commit *obsolete;
	struct commit *parent = NULL;

	if (repo_parse_commit(r, commit) || !commit->parents) {
		strbuf_addf(err, _("%s has no parent"),
			    repo_find_unique_abbrev(r, &commit->object.oid,
						    DEFAULT_ABBREV));
		return NULL;
	}
	change_graph_init(&graph, r);
	change_graph_load(&graph);
	parent = commit->parents->item;
	obsolete = oidmap_get(&graph.obsolete, &parent->object.oid);
	if (obsolete && obsolete->divergent) {
		strbuf_addf(err, _("the parent %s is replaced by both '%s' and '%s' (divergence)"),
			    repo_find_unique_abbrev(r, &parent->object.oid,
						    DEFAULT_ABBREV),
			    change_node_name(obsolete->newest),
			    change_node_name(obsolete->divergent));
		parent = NULL;
	} else if (obsolete) {
		parent = obsolete->newest->commit;
	}
	change_graph_release(&graph);
	return parent;
}

/* How far carrying trusts commit dates: a day of clock skew. */
#define CARRY_DATE_SLACK (24 * 60 * 60)

static int add_published(const struct reference *ref, void *cb_data)
{
	struct change_graph *graph = cb_data;
	struct commit *commit;

	if (is_change_refname(ref->name) ||
	    !(commit = lookup_commit_reference_gently(graph->repo, ref->oid,
						      1)))
		return 0;
	ALLOC_GROW(graph->published, graph->published_nr + 1,
		   graph->published_alloc);
	graph->published[graph->published_nr++] = commit;
	return 0;
}

/*
 * What change_graph_carried_node() needs, computed the first time: the
 * oldest date of a commit that can move without a change above it
 * knowing (an obsolete or abandoned commit), and the tips of the
 * published history (remote branches and the `upstreams`).
 */
static void prepare_carrying(struct change_graph *graph,
			     const struct string_list *upstreams)
{
	struct oidmap_iter iter;
	struct obsolete_commit *obsolete;
	struct change_node *item;
	struct string_list_item *upstream;
	timestamp_t oldest = TIME_MAX;

	graph->carry_ready = 1;
	oidmap_iter_init(&graph->obsolete, &iter);
	while ((obsolete = oidmap_iter_next(&iter))) {
		struct commit *commit = lookup_commit(graph->repo,
						      &obsolete->entry.oid);

		if (commit && !repo_parse_commit(graph->repo, commit))
			if (commit->date < oldest)
				oldest = commit->date;
	}
	oidmap_iter_init(&graph->items, &iter);
	while ((item = oidmap_iter_next(&iter)))
		if (item->abandoned &&
		    !repo_parse_commit(graph->repo, item->commit) &&
		    item->commit->date < oldest)
			oldest = item->commit->date;
	graph->carry_horizon = oldest > CARRY_DATE_SLACK ?
		oldest - CARRY_DATE_SLACK : 0;

	refs_for_each_remote_ref(get_main_ref_store(graph->repo),
				 add_published, graph);
	for (size_t i = 0; upstreams && i < upstreams->nr; i++) {
		upstream = &upstreams->items[i];
		ALLOC_GROW(graph->published, graph->published_nr + 1,
			   graph->published_alloc);
		graph->published[graph->published_nr++] = upstream->util;
	}
}

struct change_node *change_graph_add_carried(struct change_graph *graph,
					     struct commit *commit)
{
	struct change_node *item;

	CALLOC_ARRAY(item, 1);
	oidcpy(&item->entry.oid, &commit->object.oid);
	item->commit = commit;
	string_list_init_nodup(&item->refnames);
	item->carried = xstrdup(repo_find_unique_abbrev(graph->repo,
							&commit->object.oid,
							DEFAULT_ABBREV));
	oidmap_put(&graph->items, item);
	return item;
}

struct change_node *change_graph_carried_node(struct change_graph *graph,
					      struct commit *commit,
					      const struct string_list *upstreams)
{
	struct commit_list *path = NULL;
	struct commit *c = commit;
	int carry = 0;

	if (!graph->carry_ready)
		prepare_carrying(graph, upstreams);
	while (!oidset_contains(&graph->not_carried, &c->object.oid)) {
		if (oidmap_get(&graph->obsolete, &c->object.oid) ||
		    oidmap_get(&graph->items, &c->object.oid)) {
			carry = !!path;
			break;
		}
		if (repo_parse_commit(graph->repo, c) || !c->parents ||
		    c->parents->next || c->date < graph->carry_horizon) {
			oidset_insert(&graph->not_carried, &c->object.oid);
			break;
		}
		commit_list_insert(c, &path);
		c = c->parents->item;
	}
	/* The lowest commit is published if any is: then all are. */
	if (carry && graph->published_nr &&
	    repo_in_merge_bases_many(graph->repo, path->item,
				     graph->published_nr, graph->published,
				     1) > 0)
		carry = 0;

	for (struct commit_list *p = path; p; p = p->next) {
		if (!carry) {
			oidset_insert(&graph->not_carried, &p->item->object.oid);
			continue;
		}
		change_graph_add_carried(graph, p->item);
	}
	commit_list_free(path);
	return carry ? oidmap_get(&graph->items, &commit->object.oid) : NULL;
}

/*
 * The node of `parent`, the parent of a change's commit: a change's, or
 * that of a commit without a change that evolve would carry along with
 * the change (change_graph_carried_node()).
 */
static struct change_node *parent_node(struct change_graph *graph,
				       struct commit *parent)
{
	struct change_node *node = oidmap_get(&graph->items,
					      &parent->object.oid);

	/* An obsolete parent is carried by nothing: that gives NULL too. */
	return node ? node : change_graph_carried_node(graph, parent, NULL);
}

/*
 * Whether the commit of `item` is built on an obsolete or abandoned
 * commit, directly or through the commits of other changes or of
 * commits without a change that evolve would carry along: hg's
 * "orphan", which "git evolve" moves. Decided for every change at once,
 * parents first, with a stack of our own (a stack's depth is data); the
 * orphans go to `orphans`.
 */
static void find_orphans(struct change_graph *graph, struct oidset *orphans)
{
	struct oidset expanded = OIDSET_INIT, decided = OIDSET_INIT;
	struct change_node **stack = NULL, **starts = NULL;
	size_t nr = 0, alloc = 0, starts_nr = 0, starts_alloc = 0;
	struct oidmap_iter iter;
	struct change_node *start;

	/* The walk adds the nodes of carried commits to the map: copy it. */
	oidmap_iter_init(&graph->items, &iter);
	while ((start = oidmap_iter_next(&iter))) {
		ALLOC_GROW(starts, starts_nr + 1, starts_alloc);
		starts[starts_nr++] = start;
	}
	for (size_t i = 0; i < starts_nr; i++) {
		ALLOC_GROW(stack, nr + 1, alloc);
		stack[nr++] = starts[i];
		while (nr) {
			struct change_node *item = stack[nr - 1];
			const struct object_id *oid = &item->commit->object.oid;
			struct commit_list *p;
			int orphan = 0;

			if (oidset_contains(&decided, oid)) {
				nr--;
				continue;
			}
			if (repo_parse_commit(graph->repo, item->commit)) {
				nr--;
				oidset_insert(&decided, oid);
				continue;
			}
			if (!oidset_insert(&expanded, oid)) {
				for (p = item->commit->parents; p; p = p->next) {
					struct change_node *parent =
						parent_node(graph, p->item);

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
				struct change_node *parent =
					oidmap_get(&graph->items, parent_oid);

				orphan = oidmap_get(&graph->obsolete,
						    parent_oid) ||
					 (parent && (parent->abandoned ||
						     oidset_contains(orphans, parent_oid)));
			}
			if (orphan)
				oidset_insert(orphans, oid);
		}
	}
	free(stack);
	free(starts);
	oidset_clear(&expanded);
	oidset_clear(&decided);
}

/*
 * The text of the commit `oid` without what two people who make the same
 * version make differently: the committer line and the change id (each
 * rebase of a commit without one mints its own). A signature stays, so
 * a signed version is never the same as an unsigned one. Returns -1 if
 * it cannot be read.
 */
static int version_text(struct repository *r, const struct object_id *oid,
			struct strbuf *out)
{
	enum object_type type;
	size_t size;
	char *buf = odb_read_object(r->objects, oid, &type, &size);
	const char *p = buf, *end = buf + size;
	int in_header = 1;

	if (!buf || type != OBJ_COMMIT) {
		free(buf);
		return -1;
	}
	while (in_header && p < end) {
		const char *eol = memchr(p, '\n', end - p);
		size_t len = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);

		if (len == 1)
			in_header = 0;
		if (!starts_with(p, "committer ") && !starts_with(p, "change-id "))
			strbuf_add(out, p, len);
		p += len;
	}
	strbuf_add(out, p, end - p);
	free(buf);
	return 0;
}

int change_same_version(struct repository *r, struct commit *a,
			struct commit *b)
{
	struct strbuf text_a = STRBUF_INIT, text_b = STRBUF_INIT;
	int same;

	/* A quick no for most pairs: another tree. */
	if (repo_parse_commit(r, a) || repo_parse_commit(r, b) ||
	    !oideq(get_commit_tree_oid(a), get_commit_tree_oid(b)))
		return 0;
	same = !version_text(r, &a->object.oid, &text_a) &&
	       !version_text(r, &b->object.oid, &text_b) &&
	       text_a.len == text_b.len &&
	       !memcmp(text_a.buf, text_b.buf, text_a.len);
	strbuf_release(&text_a);
	strbuf_release(&text_b);
	return same;
}

/*
 * Whether `commit` is an earlier version in the history of a change of
 * `item`: that of one change, not every change's.
 */
static int in_history_of_node(struct repository *r, struct change_node *item,
			      struct commit *commit)
{
	struct oidset history = OIDSET_INIT;
	struct string_list_item *name;
	int found;

	for_each_string_list_item(name, &item->refnames) {
		struct change_head *head = name->util;

		if (head)
			change_history_add(r, &head->head, &history);
	}
	found = oidset_contains(&history, &commit->object.oid);
	oidset_clear(&history);
	return found;
}

struct change_node *change_graph_version_to_keep(struct change_graph *graph,
						 struct obsolete_commit *divergent)
{
	struct change_node *a = divergent->newest, *b = divergent->divergent;

	if (change_same_version(graph->repo, a->commit, b->commit))
		return b->remote ? b : a;
	if (in_history_of_node(graph->repo, b, a->commit))
		return b;
	if (in_history_of_node(graph->repo, a, b->commit))
		return a;
	return NULL;
}

void evolve_change_states(struct repository *r, struct string_list *changes)
{
	struct change_graph graph;
	struct oidmap_iter iter;
	struct obsolete_commit *obsolete;
	struct string_list_item *name;
	struct oidset orphans = OIDSET_INIT;
	/* The commits of versions that evolve joins to another. */
	struct oidset joining = OIDSET_INIT;
	struct string_list noted = STRING_LIST_INIT_DUP;
	struct object_id head;

	change_graph_init(&graph, r);
	change_graph_load(&graph);
	find_orphans(&graph, &orphans);
	/* Those diverging from commits fetched with their ids, too. */
	noted_divergent(r, &noted);
	if (refs_read_ref(get_main_ref_store(r), "HEAD", &head))
		oidclr(&head, r->hash_algo);

	/*
	 * Which changes are divergent: they replace a commit with another.
	 * One that another version has all of is behind it instead: evolve
	 * joins it to that one without a merge.
	 */
	oidmap_iter_init(&graph.obsolete, &iter);
	while ((obsolete = oidmap_iter_next(&iter))) {
		struct change_node *kept;

		if (!obsolete->divergent)
			continue;
		kept = change_graph_version_to_keep(&graph, obsolete);
		if (kept)
			oidset_insert(&joining, kept == obsolete->newest ?
				      &obsolete->divergent->commit->object.oid :
				      &obsolete->newest->commit->object.oid);
		else
			obsolete->newest->divergent =
				obsolete->divergent->divergent = 1;
	}

	for_each_string_list_item(name, changes) {
		struct change_head *change = change_table_get(&graph.table,
							      name->string);
		struct change_node *item = change ?
			oidmap_get(&graph.items, &change->content) : NULL;
		uintptr_t state = 0;

		if (change && oideq(&change->content, &head))
			state |= CHANGE_STATE_CURRENT;
		if (string_list_lookup(&graph.caught_up, name->string)) {
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
		if (oidset_contains(&joining, &item->commit->object.oid))
			state |= CHANGE_STATE_BEHIND;
		if (item->superseded)
			state |= CHANGE_STATE_OBSOLETE;
		if (oidset_contains(&orphans, &item->commit->object.oid))
			state |= CHANGE_STATE_ORPHAN;
		name->util = (void *)state;
	}
	oidset_clear(&orphans);
	oidset_clear(&joining);
	string_list_clear(&noted, 0);
	change_graph_release(&graph);
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

struct obsolete_finder {
	struct repository *repo;
	struct content_index_cache index;
	/* Every change, loaded when the changes of a commit do not tell. */
	struct change_graph graph;
	unsigned loaded:1;
	/* The name of the change last found. */
	struct strbuf change;
};

struct obsolete_finder *obsolete_finder_new(struct repository *r)
{
	struct obsolete_finder *finder = xcalloc(1, sizeof(*finder));

	finder->repo = r;
	strbuf_init(&finder->change, 0);
	return finder;
}

void obsolete_finder_free(struct obsolete_finder *finder)
{
	if (!finder)
		return;
	if (finder->loaded)
		change_graph_release(&finder->graph);
	content_index_cache_release(&finder->index);
	strbuf_release(&finder->change);
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

/* Whether the change `refname` exists and is at another commit than `commit`. */
static int change_moved_from(struct repository *r, const char *refname,
			     const struct object_id *commit)
{
	struct object_id content;

	if (refs_read_ref(get_main_ref_store(r), refname, &content))
		return 0;
	peel_change_head(r, refname, &content);
	return !oideq(&content, commit);
}

/*
 * Whether a remote change whose fetched history held `commit` (the
 * content index lists them), or the local change of its name, is now at
 * another commit: a collaborator amended it, or a "git merge --amend"
 * here took it in, although no local change ever held it.
 */
static int fetched_version_replaced(struct obsolete_finder *finder,
				    const struct object_id *commit)
{
	struct string_list listed = STRING_LIST_INIT_DUP;
	const struct string_list_item *name;
	struct strbuf local = STRBUF_INIT;
	int ret = 0;

	content_index_listed_remote(finder->repo, &finder->index, commit,
				    &listed);
	for_each_string_list_item(name, &listed) {
		strbuf_reset(&local);
		strbuf_add_local_change_refname(&local,
						remote_change_name(name->string));
		if (change_moved_from(finder->repo, name->string, commit) ||
		    change_moved_from(finder->repo, local.buf, commit)) {
			ret = 1;
			break;
		}
	}
	strbuf_release(&local);
	string_list_clear(&listed, 0);
	return ret;
}

/*
 * Whether `commit` may be an obsolete version: the index lists it for a
 * change that is gone (renamed, deleted) or whose commit is another one,
 * or a remote holds the change that holds it at a version ours has not
 * replaced, or, held by no local change, for a remote change now at
 * another commit.
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
	if (!ret && !held)
		ret = fetched_version_replaced(finder, commit);
	strbuf_release(&holder);
	return ret;
}

/*
 * Look `commit` up in `graph`: the name of the change holding its newest
 * version goes in `change` (or the remote version a local change is
 * behind), and how many versions came after it in `behind`.
 */
static int graph_obsolete(struct change_graph *graph,
			  const struct object_id *commit,
			  struct strbuf *change, unsigned *behind)
{
	struct obsolete_commit *obsolete = oidmap_get(&graph->obsolete, commit);
	struct string_list_item *caught_up;
	const char *name;

	if (!obsolete)
		return 0;
	name = obsolete->newest->refnames.items[0].string;
	/* A local change behind a remote version is not there yet: name that. */
	caught_up = string_list_lookup(&graph->caught_up, name);
	if (caught_up && ((struct caught_up *)caught_up->util)->remote_refname)
		name = ((struct caught_up *)caught_up->util)->remote_refname;
	strbuf_reset(change);
	strbuf_addstr(change, name);
	*behind = obsolete->behind;
	return 1;
}

/*
 * Whether the changes that held `commit` (and their remote versions)
 * make it obsolete, as the graph of every change would say: the newest
 * version of an amended commit is almost always in the change that held
 * it, and loading those costs what they hold, not what the repository
 * does.
 */
static int obsolete_by_holders(struct obsolete_finder *finder,
			       const struct object_id *commit,
			       const struct string_list *holders,
			       unsigned *behind)
{
	struct string_list listed = STRING_LIST_INIT_DUP;
	const struct string_list_item *holder;
	struct change_graph graph;
	int found;

	content_index_listed(finder->repo, &finder->index, commit, &listed);
	content_index_listed_remote(finder->repo, &finder->index, commit,
				    &listed);
	/* A change that holds it makes it no obsolete one, indexed or not. */
	for_each_string_list_item(holder, holders)
		string_list_append(&listed, holder->string);
	string_list_sort(&listed);
	string_list_remove_duplicates(&listed, 0);
	change_graph_init(&graph, finder->repo);
	change_graph_load_changes(&graph, &listed);
	found = graph_obsolete(&graph, commit, &finder->change, behind);
	change_graph_release(&graph);
	string_list_clear(&listed, 0);
	return found;
}

int obsolete_finder_lookup(struct obsolete_finder *finder,
			   const struct object_id *commit,
			   const struct string_list *holders,
			   const char **change, unsigned *behind)
{
	if (!may_be_obsolete(finder, commit))
		return 0;
	/*
	 * Once every change is loaded, it answers. Without all the
	 * changes that hold it (a decoration filter left one out), the
	 * changes that held it cannot tell that it is held.
	 */
	if (!finder->loaded && holders &&
	    obsolete_by_holders(finder, commit, holders, behind)) {
		*change = finder->change.buf;
		return 1;
	}
	/*
	 * The change that held it is gone or was set elsewhere: another
	 * change may have taken it in (a squash), which only the graph of
	 * every change tells.
	 */
	if (!finder->loaded) {
		change_graph_init(&finder->graph, finder->repo);
		change_graph_load(&finder->graph);
		finder->loaded = 1;
	}
	if (!graph_obsolete(&finder->graph, commit, &finder->change, behind))
		return 0;
	*change = finder->change.buf;
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
