/*
 * "git change": list, update and delete changes, the branches of
 * metacommits under refs/metas/ that record how commits evolve.
 */

/* for DEFAULT_ABBREV, which depends on the core.abbrev config */
#define USE_THE_REPOSITORY_VARIABLE

#include "builtin.h"
#include "advice.h"
#include "change-graph.h"
#include "change-id.h"
#include "change-peel.h"
#include "change-purge.h"
#include "change-table.h"
#include "change-writer.h"
#include "color.h"
#include "commit.h"
#include "config.h"
#include "decorate.h"
#include "environment.h"
#include "evolve.h"
#include "gettext.h"
#include "graph.h"
#include "hex.h"
#include "log-tree.h"
#include "object-name.h"
#include "odb.h"
#include "oidmap.h"
#include "oidset.h"
#include "parse-options.h"
#include "pretty.h"
#include "ref-filter.h"
#include "refs.h"
#include "remote.h"
#include "repository.h"
#include "revision.h"
#include "shallow.h"
#include "strbuf.h"
#include "string-list.h"
#include "strmap.h"
#include "wildmatch.h"

#define BUILTIN_CHANGE_LIST_USAGE \
	N_("git change list [-r | -a] [--hidden] [-v | --porcelain | --format=<format>] [<pattern>...]"), \
	N_("git change list --graph [-r | -a] [--upstream=<commit>...] [<pattern>...]")
#define BUILTIN_CHANGE_UPDATE_USAGE \
	N_("git change update [-c <commit>] [-r <commit>...] [-o <commit>...] [-g <change>] [-n] [--force]")
#define BUILTIN_CHANGE_DELETE_USAGE \
	N_("git change delete <change>...")
#define BUILTIN_CHANGE_RESTORE_USAGE \
	N_("git change restore <change>")
#define BUILTIN_CHANGE_ABANDON_USAGE \
	N_("git change abandon [<commit>]")
#define BUILTIN_CHANGE_RENAME_USAGE \
	N_("git change rename [<old>] <new>")
#define BUILTIN_CHANGE_FORGET_USAGE \
	N_("git change forget [--force] <change>...")
#define BUILTIN_CHANGE_PRUNE_USAGE \
	N_("git change prune [-n] [<branch>...]")
#define BUILTIN_CHANGE_COPY_USAGE \
	N_("git change copy <change>")
#define BUILTIN_CHANGE_PURGE_USAGE \
	N_("git change purge [--force] <commit>...")
#define BUILTIN_CHANGE_SHARE_USAGE \
	N_("git change share [<remote>]")

/*
 * Show "refs/metas/foo" as "metas/foo" and "refs/remotes/origin/metas/foo"
 * as "origin/metas/foo", the shortest names that work as revisions.
 */
static const char *display_name(const char *refname)
{
	if (!skip_prefix(refname, "refs/remotes/", &refname))
		skip_prefix(refname, "refs/", &refname);
	return refname;
}

/* "foo" for refs/metas/foo, refs/hiddenmetas/foo, refs/remotes/o/metas/foo */
static const char *change_name(const char *refname)
{
	const char *name;

	if (skip_prefix(refname, CHANGES_REF_PREFIX, &name) ||
	    skip_prefix(refname, HIDDEN_CHANGES_REF_PREFIX, &name))
		return name;
	name = remote_change_name(refname);
	return name ? name : refname;
}

/*
 * A pattern matches a change by its full refname, its displayed name or
 * its name: "foo*" matches metas/foo1 and origin/metas/foo2 alike.
 */
static int matches_any(const char *refname, const struct string_list *patterns)
{
	const struct string_list_item *item;

	if (!patterns->nr)
		return 1;
	for_each_string_list_item(item, patterns)
		if (!wildmatch(item->string, refname, 0) ||
		    !wildmatch(item->string, display_name(refname), 0) ||
		    !wildmatch(item->string, change_name(refname), 0))
			return 1;
	return 0;
}

/*
 * The states of a change: translated and ", "-separated for people
 * ("git change list -v", which marks the current one with "*" instead),
 * untranslated and ","-separated for scripts.
 */
static void add_states(struct strbuf *out, uintptr_t state, int porcelain)
{
	static const struct {
		uintptr_t flag;
		const char *name;
	} states[] = {
		{ CHANGE_STATE_CURRENT, N_("current") },
		{ CHANGE_STATE_OBSOLETE, N_("obsolete") },
		{ CHANGE_STATE_ORPHAN, N_("orphan") },
		{ CHANGE_STATE_DIVERGENT, N_("divergent") },
		{ CHANGE_STATE_ABANDONED, N_("abandoned") },
		{ CHANGE_STATE_BEHIND, N_("behind") },
	};
	size_t len = out->len;

	if (!porcelain)
		state &= ~CHANGE_STATE_CURRENT;
	for (size_t i = 0; i < ARRAY_SIZE(states); i++) {
		if (!(state & states[i].flag))
			continue;
		if (out->len > len)
			strbuf_addstr(out, porcelain ? "," : ", ");
		strbuf_addstr(out, porcelain ? states[i].name : _(states[i].name));
	}
}

static void print_verbose(struct repository *repo, struct change_table *table,
			  const char *refname, uintptr_t state, int width)
{
	struct change_head *head = change_table_get(table, refname);
	const struct object_id *oid;
	struct commit *content;
	struct strbuf line = STRBUF_INIT;
	struct strbuf states = STRBUF_INIT;
	struct pretty_print_context ctx = { 0 };

	if (!head)
		return;
	oid = &head->content;
	content = lookup_commit_reference_gently(repo, oid, 1);
	add_states(&states, state, 0);
	if (!content) {
		/* Listed all the same: a shallow clone has changes like that. */
		if (states.len)
			strbuf_addstr(&states, ", ");
		strbuf_addstr(&states, is_repository_shallow(repo) ?
			      _("beyond the shallow boundary") : _("missing"));
	}
	strbuf_addf(&line, "%c %-*s %s ", state & CHANGE_STATE_CURRENT ? '*' : ' ',
		    width, display_name(refname),
		    repo_find_unique_abbrev(repo, oid, DEFAULT_ABBREV));
	if (states.len)
		strbuf_addf(&line, "(%s) ", states.buf);
	if (content)
		repo_format_commit_message(repo, content, "%s", &line, &ctx);
	else
		strbuf_rtrim(&line);
	printf("%s\n", line.buf);
	strbuf_release(&states);
	strbuf_release(&line);
}

static void print_porcelain(struct repository *repo, struct change_table *table,
			    const char *refname, uintptr_t state)
{
	struct change_head *change = change_table_get(table, refname);
	struct object_id head, content;
	struct strbuf states = STRBUF_INIT;
	struct strbuf id = STRBUF_INIT;
	struct commit *commit;

	if (!change)
		return;
	oidcpy(&head, &change->head);
	oidcpy(&content, &change->content);
	add_states(&states, state, 1);
	if (!odb_has_object(repo->objects, &content, 0))
		strbuf_addstr(&states, states.len ? ",missing" : "missing");
	commit = lookup_commit_reference_gently(repo, &content, 1);
	if (!commit || !commit_change_id(repo, commit, &id))
		strbuf_addch(&id, '-');
	printf("%s %s %s %s %s\n", refname, oid_to_hex(&head),
	       oid_to_hex(&content), states.len ? states.buf : "-", id.buf);
	strbuf_release(&states);
	strbuf_release(&id);
}

/*
 * --format: the atoms describe the change's content commit, as a change
 * name does everywhere else it is used as a revision; %(refname) is the
 * change's own refname.
 */
static void print_formatted(struct repository *repo, const char *refname,
			    struct ref_format *format)
{
	struct object_id oid;

	if (refs_read_ref(get_main_ref_store(repo), refname, &oid))
		return;
	peel_change_head(repo, refname, &oid);
	pretty_print_ref(refname, &oid, NULL, format);
}

/*
 * Where "git change list --graph" stops: the commits given with
 * --upstream, else the upstream of the current branch, else the
 * published history: the remote-tracking branches (changes fetched from
 * remotes left out). A remote-tracking branch that is a local branch's
 * own copy, as "git push -u" makes "origin/topic" for "topic", holds work
 * in progress (as Jujutsu's tracked bookmarks are not immutable) unless
 * the remote's HEAD names it: it stops the graph only below the changes
 * listed that it has, and the remote's HEAD stops it too.
 */
struct graph_boundary {
	struct repository *repo;
	struct rev_info *rev;
	/* The commits of the changes listed. */
	const struct oidset *listed;
	/* The remote-tracking branches that are local branches' own copies. */
	struct strset own_copies;
	/* What refs/remotes/<remote>/HEAD point to. */
	struct strset remote_heads;
};

/*
 * Whether `upstream`, the upstream of `branch`, is its own copy: the
 * remote's branch of the same name.
 */
static int is_own_copy(struct branch *branch, const char *upstream)
{
	const char *name;

	return starts_with(upstream, "refs/remotes/") &&
	       branch->merge_nr && branch->merge[0]->src &&
	       skip_prefix(branch->merge[0]->src, "refs/heads/", &name) &&
	       !strcmp(name, branch->name);
}

/*
 * Stop the graph at `oid` (named `name`) or, for an own copy, at the
 * first commit down its first parents that is no commit of a change
 * listed: one step per change listed at most.
 */
static void add_boundary(struct graph_boundary *boundary, const char *name,
			 const struct object_id *oid, int own_copy)
{
	struct commit *commit = lookup_commit_reference_gently(boundary->repo,
							       oid, 1);

	while (own_copy && commit &&
	       oidset_contains(boundary->listed, &commit->object.oid))
		commit = !repo_parse_commit(boundary->repo, commit) &&
			 commit->parents ? commit->parents->item : NULL;
	if (commit)
		add_pending_oid(boundary->rev, name, &commit->object.oid,
				UNINTERESTING);
}

static int note_own_copy(const struct reference *ref, void *cb_data)
{
	struct graph_boundary *boundary = cb_data;
	struct branch *branch = branch_get(ref->name + strlen("refs/heads/"));
	const char *upstream = branch ? branch_get_upstream(branch, NULL) : NULL;

	if (upstream && is_own_copy(branch, upstream))
		strset_add(&boundary->own_copies, upstream);
	return 0;
}

static int note_remote_head(const struct reference *ref, void *cb_data)
{
	struct graph_boundary *boundary = cb_data;

	if (ref->target && ends_with(ref->name, "/HEAD"))
		strset_add(&boundary->remote_heads, ref->target);
	return 0;
}

/* Whether the remote-tracking branch `refname` holds work in progress. */
static int holds_work_in_progress(struct graph_boundary *boundary,
				  const char *refname)
{
	return strset_contains(&boundary->own_copies, refname) &&
	       !strset_contains(&boundary->remote_heads, refname);
}

static int add_remote_branch(const struct reference *ref, void *cb_data)
{
	struct graph_boundary *boundary = cb_data;

	if (!ref->target && !is_change_refname(ref->name))
		add_boundary(boundary, ref->name, ref->oid,
			     holds_work_in_progress(boundary, ref->name));
	return 0;
}

/*
 * Stop at `upstream`, the upstream of `branch`, or, if it holds work in
 * progress, below the changes it has and at its remote's HEAD. Only this
 * branch and its remote's HEAD are asked, not every ref.
 */
static void add_branch_upstream(struct graph_boundary *boundary,
				struct branch *branch, const char *upstream)
{
	struct ref_store *refs = get_main_ref_store(boundary->repo);
	struct object_id oid, head_oid;
	const char *head = NULL;
	int wip = is_own_copy(branch, upstream);

	if (refs_read_ref(refs, upstream, &oid))
		return;
	if (wip && branch->remote_name) {
		struct strbuf name = STRBUF_INIT;

		strbuf_addf(&name, "refs/remotes/%s/HEAD", branch->remote_name);
		head = refs_resolve_ref_unsafe(refs, name.buf,
					       RESOLVE_REF_READING,
					       &head_oid, NULL);
		strbuf_release(&name);
		wip = !head || strcmp(head, upstream);
	}
	add_boundary(boundary, upstream, &oid, wip);
	if (wip && head)
		add_boundary(boundary, head, &head_oid, 0);
}

static void add_graph_upstreams(struct repository *repo, struct rev_info *rev,
				const struct string_list *upstreams,
				const struct oidset *listed)
{
	struct ref_store *refs = get_main_ref_store(repo);
	struct refs_for_each_ref_options heads = { .prefix = "refs/heads/" };
	struct refs_for_each_ref_options remotes = { .prefix = "refs/remotes/" };
	struct graph_boundary boundary = {
		.repo = repo,
		.rev = rev,
		.listed = listed,
	};
	struct branch *branch;
	const char *upstream;
	struct string_list_item *item;

	for_each_string_list_item(item, upstreams) {
		struct object_id oid;
		struct commit *commit;

		if (repo_get_oid_committish(repo, item->string, &oid) ||
		    !(commit = lookup_commit_reference_gently(repo, &oid, 1)))
			die(_("'%s' is not a valid commit"), item->string);
		add_pending_oid(rev, item->string, &commit->object.oid,
				UNINTERESTING);
	}
	if (upstreams->nr)
		return;

	branch = branch_get(NULL);
	upstream = branch ? branch_get_upstream(branch, NULL) : NULL;
	if (upstream) {
		add_branch_upstream(&boundary, branch, upstream);
		return;
	}
	strset_init(&boundary.own_copies);
	strset_init(&boundary.remote_heads);
	refs_for_each_ref_ext(refs, note_own_copy, &boundary, &heads);
	refs_for_each_ref_ext(refs, note_remote_head, &boundary, &remotes);
	refs_for_each_ref_ext(refs, add_remote_branch, &boundary, &remotes);
	strset_clear(&boundary.own_copies);
	strset_clear(&boundary.remote_heads);
}

static int color_config(const char *var, const char *value,
			const struct config_context *ctx UNUSED, void *cb)
{
	return git_color_config(var, value, cb);
}

/*
 * "git change list --graph": the work in progress as "git log --graph
 * --oneline --decorate" draws it, from the commits of the changes listed
 * (and HEAD) down to where they leave the upstream, in stack order; the
 * decorations name the changes (two names on one commit are aliases),
 * branches, HEAD and obsolete commits, and each change's states follow
 * in brackets.
 */
static void list_graph(struct repository *repo, const struct string_list *shown,
		       const struct string_list *upstreams)
{
	struct decoration states = { "change states" };
	struct oidset listed = OIDSET_INIT;
	struct pretty_print_context ctx = { .abbrev = DEFAULT_ABBREV };
	const struct string_list_item *item;
	struct object_id head;
	struct commit *commit;
	struct rev_info rev;

	repo_config(repo, color_config, NULL);
	repo_init_revisions(repo, &rev, NULL);
	rev.topo_order = 1;
	rev.sort_order = REV_SORT_IN_GRAPH_ORDER;
	rev.boundary = 1;
	rev.hide_metacommits = 1;
	rev.diffopt.use_color = GIT_COLOR_UNKNOWN;
	ctx.color = want_color(rev.diffopt.use_color);
	rev.graph = graph_init(&rev);

	for_each_string_list_item(item, shown) {
		struct object_id oid;

		if (refs_read_ref(get_main_ref_store(repo), item->string, &oid))
			continue;
		peel_change_head(repo, item->string, &oid);
		commit = lookup_commit_reference_gently(repo, &oid, 1);
		if (!commit)
			continue;
		oidset_insert(&listed, &commit->object.oid);
		add_decoration(&states, &commit->object, (void *)
			       ((uintptr_t)lookup_decoration(&states, &commit->object) |
				(uintptr_t)item->util));
		add_pending_oid(&rev, item->string, &oid, 0);
	}
	if (!refs_read_ref(get_main_ref_store(repo), "HEAD", &head) &&
	    lookup_commit_reference_gently(repo, &head, 1))
		add_pending_oid(&rev, "HEAD", &head, 0);
	add_graph_upstreams(repo, &rev, upstreams, &listed);
	oidset_clear(&listed);

	load_ref_decorations(NULL, DECORATE_SHORT_REFS);
	if (prepare_revision_walk(&rev))
		die(_("revision walk setup failed"));
	while ((commit = get_revision(&rev))) {
		uintptr_t state = (uintptr_t)lookup_decoration(&states,
							       &commit->object);
		struct strbuf line = STRBUF_INIT;
		struct strbuf state_names = STRBUF_INIT;

		repo_format_commit_message(repo, commit, "%C(auto)%h%d", &line,
					   &ctx);
		/* "obsolete" is in the decorations already */
		add_states(&state_names, state & ~CHANGE_STATE_OBSOLETE, 0);
		if (state_names.len)
			strbuf_addf(&line, " [%s]", state_names.buf);
		repo_format_commit_message(repo, commit, " %s\n", &line, &ctx);
		graph_show_commit(rev.graph);
		graph_show_commit_msg(rev.graph, stdout, &line);
		strbuf_release(&state_names);
		strbuf_release(&line);
	}
	clear_decoration(&states, NULL);
	release_revisions(&rev);
}

/* Where a commit comes in stack order. */
struct commit_position {
	struct oidmap_entry entry;
	size_t position;
};

/* A change to list, and where its commit comes (NULL: unreadable). */
struct stacked_change {
	const char *refname;
	const struct commit_position *at;
};

static int compare_stacked(const void *a_, const void *b_)
{
	const struct stacked_change *a = a_, *b = b_;
	size_t pa = a->at ? a->at->position : SIZE_MAX;
	size_t pb = b->at ? b->at->position : SIZE_MAX;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return strcmp(a->refname, b->refname);
}

/*
 * Put `shown` in stack order: the order in which "git log --graph" shows
 * their commits, the top of a stack first and each stack down to its
 * bottom, the newest stack first; changes holding one commit (aliases)
 * stay together, by name, and changes whose commit cannot be read come
 * last.
 */
static void sort_in_stack_order(struct repository *repo,
				struct change_table *table,
				struct string_list *shown)
{
	struct stacked_change *changes;
	struct commit_list *commits = NULL;
	struct oidmap positions = OIDMAP_INIT;
	struct commit_position *at;
	size_t position = 0;

	CALLOC_ARRAY(changes, shown->nr);
	for (size_t i = 0; i < shown->nr; i++) {
		struct change_head *head = change_table_get(table, shown->items[i].string);
		struct commit *commit = head ?
			lookup_commit_reference_gently(repo, &head->content, 1) : NULL;

		changes[i].refname = shown->items[i].string;
		if (!commit || repo_parse_commit(repo, commit))
			continue;
		at = oidmap_get(&positions, &commit->object.oid);
		if (!at) {
			CALLOC_ARRAY(at, 1);
			oidcpy(&at->entry.oid, &commit->object.oid);
			oidmap_put(&positions, at);
			commit_list_insert(commit, &commits);
		}
		changes[i].at = at;
	}
	commit_list_sort_by_date(&commits);
	sort_in_topological_order(&commits, REV_SORT_IN_GRAPH_ORDER);
	for (struct commit_list *c = commits; c; c = c->next) {
		at = oidmap_get(&positions, &c->item->object.oid);
		at->position = position++;
	}
	QSORT(changes, shown->nr, compare_stacked);
	for (size_t i = 0; i < shown->nr; i++)
		shown->items[i].string = (char *)changes[i].refname;
	commit_list_free(commits);
	oidmap_clear(&positions, 1);
	free(changes);
}

static int change_list(int argc, const char **argv, const char *prefix,
		       struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_LIST_USAGE,
		NULL,
	};
	int verbose = 0, porcelain = 0, remotes = 0, all = 0, hidden = 0;
	int graph = 0;
	struct string_list upstreams = STRING_LIST_INIT_NODUP;
	struct ref_format format = REF_FORMAT_INIT;
	struct option options[] = {
		OPT_BOOL('r', "remotes", &remotes,
			 N_("list the changes of remotes instead")),
		OPT_BOOL('a', "all", &all,
			 N_("list local and remote changes")),
		OPT_BOOL(0, "hidden", &hidden,
			 N_("list hidden changes (refs/hiddenmetas/) too")),
		OPT__VERBOSE(&verbose,
			     N_("show the commit, state and subject of each change")),
		OPT_BOOL(0, "porcelain", &porcelain,
			 N_("machine-readable output: refname, head, content, states")),
		OPT_STRING(0, "format", &format.format, N_("format"),
			   N_("format to use for the output")),
		OPT_BOOL(0, "graph", &graph,
			 N_("draw the changes as a graph, in stack order, down to their upstream")),
		OPT_STRING_LIST(0, "upstream", &upstreams, N_("commit"),
				N_("with --graph: stop at this commit (default: the upstream of the current branch)")),
		OPT_END(),
	};
	struct string_list patterns = STRING_LIST_INIT_NODUP;
	struct string_list refnames = STRING_LIST_INIT_DUP;
	struct string_list shown = STRING_LIST_INIT_NODUP;
	struct string_list_item *item;
	struct change_table table;
	struct change_peel_cache *peel = NULL;
	unsigned kinds;
	int width = 0;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	die_for_incompatible_opt3(verbose, "--verbose", porcelain, "--porcelain",
				  !!format.format, "--format");
	die_for_incompatible_opt2(remotes, "--remotes", all, "--all");
	die_for_incompatible_opt4(graph, "--graph", verbose, "--verbose",
				  porcelain, "--porcelain",
				  !!format.format, "--format");
	if (upstreams.nr && !graph)
		die(_("the option '%s' requires '%s'"), "--upstream", "--graph");
	if (format.format && verify_ref_format(&format))
		die(_("unable to parse format string"));

	for (int i = 0; i < argc; i++)
		string_list_append(&patterns, argv[i]);

	kinds = remotes ? CHANGE_KIND_REMOTE : CHANGE_KIND_LOCAL;
	if (all)
		kinds |= CHANGE_KIND_REMOTE;
	if (hidden)
		kinds |= CHANGE_KIND_HIDDEN;
	/*
	 * -v, --porcelain and --format read every change and skip malformed
	 * metacommits. Names alone come from the refs (a malformed
	 * metacommit is listed, last), put in stack order by reading the
	 * changes; --graph lets its walk read the commits it draws.
	 */
	change_table_init(&table);
	if (verbose || porcelain || format.format || !graph) {
		/* What the heads are, without reading most of them. */
		peel = change_peel_cache_load(repo);
		change_peel_cache_serve(peel, &table);
	}
	if (verbose || porcelain || format.format) {
		change_table_add_kinds(&table, repo, kinds);
		change_table_refnames(&table, &refnames);
	} else {
		change_refnames(repo, kinds, &refnames);
		if (!graph)
			change_table_add_kinds(&table, repo, kinds);
	}
	/*
	 * The table holds what it learned: write it back now, so that the
	 * graph of evolve_change_states() finds it and reads no head again.
	 */
	change_peel_cache_serve(NULL, &table);
	change_peel_cache_release(peel, 0);
	for_each_string_list_item(item, &refnames) {
		int len = strlen(display_name(item->string));

		if (!matches_any(item->string, &patterns))
			continue;
		string_list_append(&shown, item->string);
		if (len > width)
			width = len;
	}
	/* Scripts get the changes by name, as for-each-ref lists refs. */
	if (!graph && !porcelain && !format.format)
		sort_in_stack_order(repo, &table, &shown);
	if (verbose || porcelain || graph)
		evolve_change_states(repo, &shown);
	if (graph)
		list_graph(repo, &shown, &upstreams);
	else for_each_string_list_item(item, &shown) {
		if (format.format)
			print_formatted(repo, item->string, &format);
		else if (porcelain)
			print_porcelain(repo, &table, item->string,
					(uintptr_t)item->util);
		else if (verbose)
			print_verbose(repo, &table, item->string,
				      (uintptr_t)item->util, width);
		else
			printf("%s\n", display_name(item->string));
	}

	string_list_clear(&shown, 0);
	string_list_clear(&refnames, 0);
	string_list_clear(&upstreams, 0);
	change_table_clear(&table);
	string_list_clear(&patterns, 0);
	return 0;
}

static void resolve_commit(struct repository *repo, const char *name,
			   struct object_id *oid)
{
	struct commit *commit = NULL;

	/* A name of no object, or of one that is no commit, alike. */
	if (!repo_get_oid_committish(repo, name, oid))
		commit = lookup_commit_reference_gently(repo, oid, 1);
	if (!commit)
		die(_("'%s' is not a valid commit"), name);
	oidcpy(oid, &commit->object.oid);
}

static void resolve_commits(struct repository *repo,
			    const struct string_list *names,
			    struct oid_array *oids)
{
	const struct string_list_item *item;

	for_each_string_list_item(item, names) {
		struct object_id oid;

		resolve_commit(repo, item->string, &oid);
		oid_array_append(oids, &oid);
	}
}

static int change_update(int argc, const char **argv, const char *prefix,
			 struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_UPDATE_USAGE,
		NULL,
	};
	const char *content = "HEAD";
	const char *change = NULL;
	struct string_list replace = STRING_LIST_INIT_NODUP;
	struct string_list origin = STRING_LIST_INIT_NODUP;
	unsigned flags = 0;
	struct option options[] = {
		OPT_STRING('c', "content", &content, N_("commit"),
			   N_("the new content commit of the change (default: HEAD)")),
		OPT_STRING_LIST('r', "replace", &replace, N_("commit"),
				N_("mark the given commit as obsoleted by the content")),
		OPT_STRING_LIST('o', "origin", &origin, N_("commit"),
				N_("mark the given commit as the origin of the content")),
		OPT_STRING('g', "change", &change, N_("change"),
			   N_("name of the change to create or update")),
		OPT_BIT('n', "new", &flags,
			N_("create a new change instead of appending to existing ones"),
			METACOMMIT_UPDATE_NOAPPEND),
		OPT_BIT(0, "force", &flags,
			N_("allow a change to be updated to an unrelated commit"),
			METACOMMIT_UPDATE_FORCE),
		OPT_END(),
	};
	struct metacommit_data metacommit = METACOMMIT_DATA_INIT;
	struct string_list changes = STRING_LIST_INIT_DUP;
	struct string_list_item *item;
	struct strbuf err = STRBUF_INIT;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (argc)
		usage_with_options(usage, options);
	if (change && (flags & METACOMMIT_UPDATE_NOAPPEND))
		die(_("options '%s' and '%s' cannot be used together"),
		    "--change", "--new");

	resolve_commit(repo, content, &metacommit.content);
	resolve_commits(repo, &replace, &metacommit.replace);
	resolve_commits(repo, &origin, &metacommit.origin);

	ret = record_metacommit(repo, &metacommit, change, flags,
				"change update", &changes, &err);
	if (ret)
		error("%s", err.buf);
	for_each_string_list_item(item, &changes)
		printf(item->util ? _("Updated change %s\n") :
		       _("Created change %s\n"), display_name(item->string));

	string_list_clear(&changes, 1);
	metacommit_data_clear(&metacommit);
	string_list_clear(&replace, 0);
	string_list_clear(&origin, 0);
	strbuf_release(&err);
	return !!ret;
}

/*
 * Resolve the change names `argv` into `refnames`, each `util` its current
 * object name; all or nothing. Returns 0, or -1 after reporting an error.
 */
static int collect_changes(struct repository *repo, int argc, const char **argv,
			   struct string_list *refnames)
{
	struct strbuf refname = STRBUF_INIT;
	int ret = 0;

	for (int i = 0; i < argc; i++) {
		struct object_id oid;

		strbuf_reset(&refname);
		strbuf_add_change_refname(&refname, argv[i]);
		if (check_refname_format(refname.buf, 0) ||
		    refs_read_ref(get_main_ref_store(repo), refname.buf, &oid)) {
			ret = error(_("change '%s' not found"), argv[i]);
			continue;
		}
		if (!unsorted_string_list_has_string(refnames, refname.buf))
			string_list_append(refnames, refname.buf)->util = oiddup(&oid);
	}
	strbuf_release(&refname);
	return ret;
}

/* `fmt` takes the name of the change and its abbreviated old value. */
static void print_deleted(struct repository *repo,
			  const struct string_list *refnames, const char *fmt)
{
	const struct string_list_item *item;

	for_each_string_list_item(item, refnames) {
		printf(fmt, display_name(item->string),
		       repo_find_unique_abbrev(repo, item->util, DEFAULT_ABBREV));
		putchar('\n');
	}
}

static int change_delete(int argc, const char **argv, const char *prefix,
			 struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_DELETE_USAGE,
		NULL,
	};
	struct option options[] = {
		OPT_END(),
	};
	struct string_list refnames = STRING_LIST_INIT_DUP;
	struct strbuf err = STRBUF_INIT;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (!argc)
		usage_with_options(usage, options);

	/* Delete all or nothing: check every name first. */
	ret = collect_changes(repo, argc, argv, &refnames);
	if (!ret && delete_changes(repo, &refnames, "change delete", &err))
		ret = error("%s", err.buf);
	if (!ret)
		print_deleted(repo, &refnames, _("Deleted change %s (was %s)"));

	string_list_clear(&refnames, 1);
	strbuf_release(&err);
	return !!ret;
}

static int change_forget(int argc, const char **argv, const char *prefix,
			 struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_FORGET_USAGE,
		NULL,
	};
	int force = 0;
	struct option options[] = {
		OPT_BOOL(0, "force", &force,
			 N_("forget a change even if others build on it")),
		OPT_END(),
	};
	struct string_list refnames = STRING_LIST_INIT_DUP;
	struct strbuf err = STRBUF_INIT;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (!argc)
		usage_with_options(usage, options);

	ret = collect_changes(repo, argc, argv, &refnames);
	if (!ret && forget_changes(repo, &refnames, force, &err))
		ret = error("%s", err.buf);
	if (!ret)
		print_deleted(repo, &refnames, _("Forgot change %s (was %s)"));

	string_list_clear(&refnames, 1);
	strbuf_release(&err);
	return !!ret;
}

/*
 * The shape of "restore" and "copy": one change name and no option, for a
 * library function that reports the refname it acted on, and a message
 * (with a %s for that name) that says it was done.
 */
typedef int one_change_fn(struct repository *r, const char *name,
			  struct strbuf *refname, struct strbuf *err);

static int one_change_command(int argc, const char **argv, const char *prefix,
			      struct repository *repo, const char *usage_line,
			      one_change_fn *fn, const char *done)
{
	const char * const usage[] = {
		usage_line,
		NULL,
	};
	struct option options[] = {
		OPT_END(),
	};
	struct strbuf refname = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (argc != 1)
		usage_with_options(usage, options);

	ret = fn(repo, argv[0], &refname, &err);
	if (ret)
		error("%s", err.buf);
	else
		printf(done, display_name(refname.buf));
	strbuf_release(&refname);
	strbuf_release(&err);
	return !!ret;
}

static int change_restore(int argc, const char **argv, const char *prefix,
			  struct repository *repo)
{
	return one_change_command(argc, argv, prefix, repo,
				  BUILTIN_CHANGE_RESTORE_USAGE, restore_change,
				  _("Restored change %s\n"));
}

static int change_copy(int argc, const char **argv, const char *prefix,
		       struct repository *repo)
{
	return one_change_command(argc, argv, prefix, repo,
				  BUILTIN_CHANGE_COPY_USAGE, copy_change,
				  _("Change %s is now a copy: it replaces nothing\n"));
}

static void print_head_after_abandon(struct repository *repo,
				     enum abandon_head head)
{
	struct pretty_print_context ctx = { .abbrev = DEFAULT_ABBREV };
	struct strbuf subject = STRBUF_INIT;
	struct commit *commit;

	switch (head) {
	case ABANDON_HEAD_ELSEWHERE:
		break;
	case ABANDON_HEAD_MOVED:
		/* As "git checkout" says it. */
		commit = lookup_commit_reference_by_name("HEAD");
		if (!commit)
			break;
		repo_format_commit_message(repo, commit, "%h %s", &subject, &ctx);
		fprintf(stderr, _("HEAD is now at %s\n"), subject.buf);
		break;
	case ABANDON_HEAD_ROOT:
		warning(_("HEAD stays on the abandoned commit: it has no parent"));
		break;
	case ABANDON_HEAD_BUSY:
		warning(_("HEAD stays on the abandoned commit while another "
			  "command is in progress; \"git evolve\" moves it later"));
		break;
	}
	strbuf_release(&subject);
}

static int change_abandon(int argc, const char **argv, const char *prefix,
			  struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_ABANDON_USAGE,
		NULL,
	};
	struct option options[] = {
		OPT_END(),
	};
	struct string_list changes = STRING_LIST_INIT_DUP;
	struct string_list_item *item;
	struct strbuf err = STRBUF_INIT;
	enum abandon_head head;
	struct object_id oid;
	const char *name;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (argc > 1)
		usage_with_options(usage, options);

	name = argc ? argv[0] : "HEAD";
	resolve_commit(repo, name, &oid);
	ret = abandon_and_leave(repo, &oid, &changes, &head, &err);
	for_each_string_list_item(item, &changes)
		printf(_("Abandoned change %s\n"), display_name(item->string));
	if (ret > 0)
		error(_("'%s' is not the commit of a change"), name);
	else if (ret)
		error("%s", err.buf);
	else
		print_head_after_abandon(repo, head);
	string_list_clear(&changes, 1);
	strbuf_release(&err);
	return !!ret;
}

static int change_rename(int argc, const char **argv, const char *prefix,
			 struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_RENAME_USAGE,
		NULL,
	};
	struct option options[] = {
		OPT_END(),
	};
	struct strbuf renamed = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *new;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (argc < 1 || argc > 2)
		usage_with_options(usage, options);
	new = argv[argc - 1];

	ret = rename_change(repo, argc == 2 ? argv[0] : NULL, new, &renamed, &err);
	if (ret)
		error("%s", err.buf);
	else {
		struct strbuf refname = STRBUF_INIT;

		strbuf_add_change_refname(&refname, new);
		if (renamed.len)
			printf(_("Renamed change %s to %s\n"),
			       display_name(renamed.buf),
			       display_name(refname.buf));
		else
			printf(_("Created change %s\n"), display_name(refname.buf));
		strbuf_release(&refname);
	}
	strbuf_release(&renamed);
	strbuf_release(&err);
	return !!ret;
}

static void print_pruned(struct repository *repo, const char *refname,
			 const struct pruned_change *why, int dry_run)
{
	const char *abbrev = repo_find_unique_abbrev(repo, &why->head,
						     DEFAULT_ABBREV);
	const char *name = display_name(refname);

	switch (why->reason) {
	case PRUNED_OBSOLETE:
		if (dry_run)
			printf(_("Would prune obsolete change %s (%s)\n"), name, abbrev);
		else
			printf(_("Pruned obsolete change %s (was %s)\n"), name, abbrev);
		break;
	case PRUNED_ABANDONED:
		if (dry_run)
			printf(_("Would prune abandoned change %s (%s)\n"), name, abbrev);
		else
			printf(_("Pruned abandoned change %s (was %s)\n"), name, abbrev);
		break;
	case PRUNED_LANDED:
		if (dry_run)
			printf(_("Would prune change %s (%s), which is in %s\n"),
			       name, abbrev, why->upstream);
		else
			printf(_("Pruned change %s (was %s), which is in %s\n"),
			       name, abbrev, why->upstream);
		break;
	}
}

static int change_prune(int argc, const char **argv, const char *prefix,
			struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_PRUNE_USAGE,
		NULL,
	};
	int dry_run = 0;
	struct option options[] = {
		OPT__DRY_RUN(&dry_run, N_("only show what would be pruned")),
		OPT_END(),
	};
	struct string_list upstreams = STRING_LIST_INIT_NODUP;
	struct string_list pruned = STRING_LIST_INIT_DUP;
	struct string_list_item *item;
	struct strbuf err = STRBUF_INIT;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (evolve_resolve_upstreams(repo, argv, argc, &upstreams, &err))
		die("%s", err.buf);

	ret = prune_changes(repo, &upstreams, dry_run, &pruned, &err);
	if (ret)
		error("%s", err.buf);
	else
		for_each_string_list_item(item, &pruned)
			print_pruned(repo, item->string, item->util, dry_run);
	if (!ret && !dry_run && pruned.nr)
		advise_if_enabled(ADVICE_CHANGE_RESTORE,
				  _("Use \"git change restore <change>\" to bring one back."));

	string_list_clear(&pruned, 1);
	string_list_clear(&upstreams, 0);
	strbuf_release(&err);
	return !!ret;
}

static void print_purged(struct repository *repo,
			 const struct purge_result *result)
{
	const struct string_list_item *item;

	for_each_string_list_item(item, &result->rewritten)
		printf(_("Rewrote change %s\n"), display_name(item->string));
	for_each_string_list_item(item, &result->deleted)
		printf(_("Deleted change %s: its content was purged\n"),
		       display_name(item->string));
	for (size_t i = 0; i < result->not_found.nr; i++)
		warning(_("%s is not a version of any change"),
			repo_find_unique_abbrev(repo, &result->not_found.oid[i],
						DEFAULT_ABBREV));
	for_each_string_list_item(item, &result->remote)
		warning(_("the remote-tracking change '%s' still has a purged "
			  "version: purge never moves remote-tracking changes"),
			display_name(item->string));
}

static int change_purge(int argc, const char **argv, const char *prefix,
			struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_PURGE_USAGE,
		NULL,
	};
	struct purge_options opts = { 0 };
	int force = 0;
	struct option options[] = {
		OPT__FORCE(&force, N_("purge versions that changes hold as well"), 0),
		OPT_END(),
	};
	struct purge_result result = PURGE_RESULT_INIT;
	struct oid_array versions = OID_ARRAY_INIT;
	struct strbuf err = STRBUF_INIT;
	int ret;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (!argc)
		usage_with_options(usage, options);
	for (int i = 0; i < argc; i++) {
		struct object_id oid;

		resolve_commit(repo, argv[i], &oid);
		if (is_metacommit(repo, lookup_commit(repo, &oid)))
			die(_("cannot purge '%s': it is a metacommit, which "
			      "records how a change evolved and has no files"),
			    argv[i]);
		oid_array_append(&versions, &oid);
	}
	opts.versions = &versions;
	opts.force = !!force;
	ret = purge_versions(repo, &opts, &result, &err);
	if (ret)
		error("%s", err.buf);
	else
		print_purged(repo, &result);
	purge_result_release(&result);
	oid_array_clear(&versions);
	strbuf_release(&err);
	return !!ret;
}

/*
 * Fetch the changes of a remote next to its branches, which is all that
 * sharing them takes: pushing one is "git push <remote> metas/<name>".
 */
static int change_share(int argc, const char **argv, const char *prefix,
			struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_SHARE_USAGE,
		NULL,
	};
	struct option options[] = {
		OPT_END(),
	};
	struct strbuf key = STRBUF_INIT, refspec = STRBUF_INIT;
	struct remote *remote;
	int configured = 0;

	argc = parse_options(argc, argv, prefix, options, usage, 0);
	if (argc > 1)
		usage_with_options(usage, options);
	remote = remote_get(argc ? argv[0] : NULL);
	if (!remote || !remote_is_configured(remote, 1))
		die(_("'%s' is not a remote"),
		    argc ? argv[0] : remote ? remote->name : "origin");

	strbuf_addf(&refspec, "+refs/metas/*:refs/remotes/%s/metas/*",
		    remote->name);
	for (int i = 0; i < remote->fetch.nr; i++)
		if (!strcmp(remote->fetch.items[i].raw, refspec.buf))
			configured = 1;
	if (!configured) {
		strbuf_addf(&key, "remote.%s.fetch", remote->name);
		repo_config_set_multivar(repo, key.buf, refspec.buf,
					 CONFIG_REGEX_NONE, 0);
	}
	printf(configured ?
	       _("'%s' already fetches its changes into refs/remotes/%s/metas/.\n") :
	       _("'%s' now fetches its changes into refs/remotes/%s/metas/.\n"),
	       remote->name, remote->name);
	printf(_("Push a change with \"git push %s metas/<name>\".\n"),
	       remote->name);
	strbuf_release(&key);
	strbuf_release(&refspec);
	return 0;
}

int cmd_change(int argc,
	       const char **argv,
	       const char *prefix,
	       struct repository *repo)
{
	const char * const usage[] = {
		BUILTIN_CHANGE_LIST_USAGE,
		BUILTIN_CHANGE_UPDATE_USAGE,
		BUILTIN_CHANGE_DELETE_USAGE,
		BUILTIN_CHANGE_RESTORE_USAGE,
		BUILTIN_CHANGE_ABANDON_USAGE,
		BUILTIN_CHANGE_RENAME_USAGE,
		BUILTIN_CHANGE_FORGET_USAGE,
		BUILTIN_CHANGE_PRUNE_USAGE,
		BUILTIN_CHANGE_COPY_USAGE,
		BUILTIN_CHANGE_PURGE_USAGE,
		BUILTIN_CHANGE_SHARE_USAGE,
		NULL,
	};
	parse_opt_subcommand_fn *fn = NULL;
	struct option options[] = {
		OPT_SUBCOMMAND("list", &fn, change_list),
		OPT_SUBCOMMAND("update", &fn, change_update),
		OPT_SUBCOMMAND("delete", &fn, change_delete),
		OPT_SUBCOMMAND("restore", &fn, change_restore),
		OPT_SUBCOMMAND("abandon", &fn, change_abandon),
		OPT_SUBCOMMAND("rename", &fn, change_rename),
		OPT_SUBCOMMAND("forget", &fn, change_forget),
		OPT_SUBCOMMAND("prune", &fn, change_prune),
		OPT_SUBCOMMAND("copy", &fn, change_copy),
		OPT_SUBCOMMAND("purge", &fn, change_purge),
		OPT_SUBCOMMAND("share", &fn, change_share),
		OPT_END(),
	};

	repo_config(repo, git_default_config, NULL);
	argc = parse_options(argc, argv, prefix, options, usage,
			     PARSE_OPT_SUBCOMMAND_OPTIONAL);
	if (!fn) {
		const char *list_argv[] = { "list", NULL };

		if (argc) {
			error(_("unknown subcommand: `%s'"), argv[0]);
			usage_with_options(usage, options);
		}
		return change_list(1, list_argv, prefix, repo);
	}
	return fn(argc, argv, prefix, repo);
}
