#ifndef CHANGE_GRAPH_H
#define CHANGE_GRAPH_H

#include "hash.h"
#include "change-table.h"
#include "oidmap.h"
#include "oidset.h"
#include "string-list.h"

struct change_peel_cache;
struct commit;
struct content_index_cache;
struct oidset;
struct repository;
struct strbuf;

/*
 * The read-only change graph: every change loaded once, local and fetched
 * from remotes, and the commits they make obsolete, with the questions
 * asked of it (which version is the newest, which changes are built on a
 * commit, what state a change is in, its versions in order, the merge
 * base of two versions). Nothing here moves a ref; "git log", merge-base
 * and "git status" use it without the evolve engine (evolve.h), which
 * builds on it.
 */

/*
 * The content commit of one or more active changes (aliases), or of a
 * newest version fetched from a remote.
 */
struct change_node {
	struct oidmap_entry entry;
	struct commit *commit;
	/*
	 * Refnames of the changes (util: their struct change_head), the
	 * change tables' own strings.
	 */
	struct string_list refnames;
	unsigned abandoned:1,
		 /* another change replaces it: it is obsolete */
		 superseded:1,
		 /* it replaces a commit that another change replaces too */
		 divergent:1,
		 /*
		  * The newest version of a change fetched from a remote
		  * (refnames: its remote-tracking ref), which no local
		  * change holds: evolve builds on it, and rewrites it only
		  * when a local change is built on it and its base was
		  * amended (the writer then records the new version in a
		  * local change that continues it); its ref never moves.
		  */
		 remote:1;

	/*
	 * What one run of the evolve engine (evolve.c) works out for the
	 * node, as a revision walk keeps its flags in the objects it walks.
	 * The graph leaves them zero.
	 */
	/* A commit carried along without a change: its abbreviated name. */
	char *carried;
	/* What the commit becomes: itself, its rebased version or a parent. */
	struct commit *result;
	enum { ITEM_PENDING, ITEM_VISITING, ITEM_DONE } state;
	unsigned changed:1, /* result differs from commit */
		 emptied:1,
		 /* abandoned, and a child or ref moved off it */
		 dropped:1,
		 /* it is in an upstream: its children go onto that */
		 landed:1,
		 /* on the stack of visit_deep(), waiting for its parents */
		 queued:1;
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
	struct change_node *newest;
	/* How many versions of the commit came after it (at least 1). */
	unsigned behind;
	/* Another change that replaces it too, or NULL. */
	struct change_node *divergent;
};

/*
 * Every change, and the commits they make obsolete. Set up with
 * change_graph_init(), filled by change_graph_load(), freed with
 * change_graph_release(); the fields are read by the queries here and by
 * the evolve engine, and written only by this file (and by the engine,
 * which adds the commits it carries along to `items`).
 */
struct change_graph {
	struct repository *repo;
	/* The local changes (refs/metas/). */
	struct change_table table;
	/* The changes fetched from remotes (see add_remote_versions()). */
	struct change_table remote_table;
	/* Local refname -> struct caught_up. */
	struct string_list caught_up;
	/* content commit -> struct change_node */
	struct oidmap items;
	/* obsolete commit -> struct obsolete_commit */
	struct oidmap obsolete;
	/* What the heads are, so that loading reads no object for most. */
	struct change_peel_cache *peel;

	/*
	 * Carrying commits without a change (change_graph_carried_node()):
	 * commits known not to be carried, the date below which none is,
	 * and the published history they must stay out of.
	 */
	struct oidset not_carried;
	timestamp_t carry_horizon;
	struct commit **published;
	size_t published_nr, published_alloc;
	unsigned carry_ready:1;
	/*
	 * Loaded as changes would be after moves (change_graph_show_moved()):
	 * what the peel cache learns then is not written.
	 */
	unsigned shows_moved:1;
};

/* An empty graph of the changes of `r`; nothing is read yet. */
void change_graph_init(struct change_graph *graph, struct repository *r);
/* Free what the graph holds, its nodes included. */
void change_graph_release(struct change_graph *graph);

/*
 * Load the changes as `moved` (refname -> struct object_id) says they
 * would be, not as their refs are (see change_table_show_moved()): for a
 * dry run. Call it before loading.
 */
void change_graph_show_moved(struct change_graph *graph,
			     struct strmap *moved);

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
 * stays where it is (`upstreams`, whose utils are their commits, or
 * NULL, are published too). Returns the node of `commit`, or NULL.
 */
struct change_node *change_graph_carried_node(struct change_graph *graph,
					      struct commit *commit,
					      const struct string_list *upstreams);

/*
 * Add a node for `commit`, a commit without a change that evolve
 * carries along (named by its abbreviated object name).
 */
struct change_node *change_graph_add_carried(struct change_graph *graph,
					     struct commit *commit);

/*
 * The head of the local change `refname` as evolve treats it: where it
 * is, or the remote version it catches up with.
 */
struct change_head *change_graph_local_head(struct change_graph *graph,
					    const char *refname);

/* The change `refname` if it is caught up by id (catch_up_by_id()). */
struct caught_up *change_graph_caught_up_by_id(struct change_graph *graph,
					       const char *refname);

/* Load every change, and find the commits they make obsolete. */
void change_graph_load(struct change_graph *graph);

/*
 * Load only the changes `refnames` (local ones, refs/metas/..., and
 * remote ones, refs/remotes/<remote>/metas/...; others are skipped),
 * with the local change and the versions fetched from each configured
 * remote of the same names, and find the commits they make obsolete: the graph
 * then answers as a loaded one does about the commits their histories
 * hold, but that a change left out may replace them too (a divergence
 * it does not see), at the cost of those changes alone.
 */
void change_graph_load_changes(struct change_graph *graph,
			       const struct string_list *refnames);

/*
 * The name of the (first) change of `item`, as users write it:
 * "metas/foo", or "origin/metas/foo" for a remote version.
 */
const char *change_node_name(struct change_node *item);

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
int indexed_change_of(struct repository *r,
		      struct content_index_cache *cache,
		      const struct object_id *commit,
		      struct strbuf *refname, struct object_id *head,
		      int *moved);

/*
 * The change whose commit is `commit`, as users write it ("metas/foo"; the
 * first by name if several hold it), or else its abbreviated object name.
 */
char *name_change_commit(struct repository *r, const struct object_id *commit);

/*
 * Whether two versions of a change, the metacommits `a` and `b` whose
 * histories (change_history_add()) are given, diverge: neither holds a
 * version of the other's history or the other's head (as after a merge
 * --amend, which replaces both), and their histories share a version
 * that both replaced.
 */
int versions_diverge(const struct object_id *a,
		     const struct oidset *history_a,
		     const struct object_id *b,
		     const struct oidset *history_b);

/*
 * Whether the changes `a` and `b` (refnames) both exist and diverge
 * (versions_diverge()). Costs the walks of their two histories.
 */
int changes_diverge(struct repository *r, const char *a, const char *b);

/*
 * Whether the fetched commit `fetched`, which has the change id of the
 * local change `local` (whose commit is `content`), diverges from it:
 * it is not that commit, not an earlier version of the change, not
 * built on it (as a commit that has its id by mistake would be), and
 * not a version that a fetched change (`fetched_versions`) already
 * says how it relates to the user's.
 */
int fetched_version_diverges(struct repository *r, const char *local,
			     const struct object_id *content,
			     struct commit *fetched,
			     const struct oidset *fetched_versions);

/*
 * The local changes that the divergences noted (DIVERGENT_FILE,
 * NEWER_FILE) still leave divergent, into the sorted `divergent`.
 */
void noted_divergent(struct repository *r,
		     struct string_list *divergent);

/*
 * The commit noted newer than the local change `local` (at `head`) that
 * still is: the change has not moved since, and the commit still has
 * the change id of its commit without replacing it or being replaced by
 * it. Returns it, or NULL.
 */
const struct object_id *noted_newer_of(struct repository *r,
				       struct string_list *noted,
				       const char *local,
				       const struct object_id *head);

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
 * Whether two versions of one commit are the same one made twice: the
 * same commit but for who committed it, and when, and its change id;
 * two people who rebased a change the same way made them, and joining
 * them needs no merge. A signed version is not the same as another.
 */
int change_same_version(struct repository *r, struct commit *a,
			struct commit *b);

/*
 * Of the two versions of the divergent commit `divergent`, the one that
 * the other adds nothing to, which "git evolve" joins the other to, or
 * NULL if only a merge can join them: of the same version made twice,
 * the remote one if one is (no new commit is made); or the newer, when
 * one is an earlier version of the other (a version that joined another,
 * then amended by its author, is that).
 */
struct change_node *change_graph_version_to_keep(struct change_graph *graph,
						 struct obsolete_commit *divergent);

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
 * is one, which "git evolve" fast-forwards to; or it diverged from a
 * version that has all of it (change_graph_version_to_keep()), which
 * "git evolve" joins it to.
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
 * replaces them (a topological order, as "git log --graph" needs).
 * Returns 0 and fills `entries` (free with obslog_entries_release()), or
 * -1 with a message in `err`.
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
 * For "git log --decorate": whether commits are obsolete, i.e. replaced,
 * in the history of a change under refs/metas/ or of a remote's, by a
 * newer version, and are not themselves the commit of a change (unless
 * that change is behind its remote version). Only a commit that may be
 * obsolete is looked into: one the content index lists for a change
 * (local, or fetched: see index_fetched_changes()) whose commit it no
 * longer is, or the commit of a change that a remote has at another
 * version. Others cost a look at a cached index bucket, and a ref read
 * per remote for the commits of changes. (So obsolete versions of
 * changes that only came by update-ref, or by a fetch of a Git without
 * this series, and no local change ever held, are not found.) For one
 * that may be, the
 * histories of the changes the index lists for it (and of their remote
 * versions) are walked; only if they do not replace it is the history of
 * every change walked, once, to find the change that took it in (say a
 * squash). So when two changes replace a commit, the one that held it
 * is named, not the first by name.
 */
struct obsolete_finder;
struct obsolete_finder *obsolete_finder_new(struct repository *r);
void obsolete_finder_free(struct obsolete_finder *finder);

/*
 * Whether `commit` is obsolete: then `change` is set to the refname of
 * (one of) the changes holding its newest version, valid until the next
 * lookup, and `behind` to how many versions came after it (along one
 * path of the change's history). `holders` are the refnames of all the
 * local changes that hold `commit` (say its decorations), sorted or not,
 * which the content index may not list (an update-ref made them); NULL
 * if they are not known, and then every change is loaded.
 */
int obsolete_finder_lookup(struct obsolete_finder *finder,
			   const struct object_id *commit,
			   const struct string_list *holders,
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

#endif /* CHANGE_GRAPH_H */
