/*
 * "git change purge": erase versions of commits from the history of the
 * changes. The metacommits that reach an erased version are written
 * again without it, oldest first, by an iterative walk (a history's depth
 * is data, so no recursion), and the changes move in one transaction.
 */

#include "git-compat-util.h"
#include "change-purge.h"
#include "change-table.h"
#include "change-writer.h"
#include "commit.h"
#include "evolve-state.h"
#include "gettext.h"
#include "hex.h"
#include "object.h"
#include "oidmap.h"
#include "oidset.h"
#include "odb.h"
#include "refs.h"
#include "repository.h"
#include "strbuf.h"

/* A metacommit met in the history of a change. */
struct purge_node {
	struct oidmap_entry entry;
	struct metacommit_data data;
	/* Its parents were pushed on the walk's stack; it was rewritten. */
	unsigned expanded:1, done:1;
	/* It could not be parsed: it is kept as it is. */
	unsigned malformed:1;
	/* Its content is erased: it is left out. */
	unsigned removed:1;
	/* Its history (content or parents) has an erased version. */
	unsigned reaches:1;
	/* What stands for it now, if it is kept. */
	struct object_id new;
	/* If it is left out: what it replaced, rewritten, in its place. */
	struct oid_array bypass;
};

struct purge {
	struct repository *repo;
	struct oidset erase;
	/* The versions met: the others are reported as not found. */
	struct oidset met;
	/* Metacommits by object name; plain commits are not in it. */
	struct oidmap nodes;
	struct oidset plain;
	struct purge_node **stack;
	size_t stack_nr, stack_alloc;
	/* Write the metacommits rewritten (not for remote-tracking ones). */
	unsigned write:1;
};

static void free_node(void *entry)
{
	struct purge_node *node = entry;

	metacommit_data_clear(&node->data);
	oid_array_clear(&node->bypass);
	free(node);
}

static int is_erased(struct purge *p, const struct object_id *oid)
{
	if (!oidset_contains(&p->erase, oid))
		return 0;
	oidset_insert(&p->met, oid);
	return 1;
}

/* The node of the metacommit `oid`, or NULL for a plain commit. */
static struct purge_node *node_of(struct purge *p, const struct object_id *oid)
{
	struct purge_node *node = oidmap_get(&p->nodes, oid);
	struct strbuf err = STRBUF_INIT;
	struct commit *commit;
	int type;

	if (node || oidset_contains(&p->plain, oid))
		return node;
	commit = lookup_commit(p->repo, oid);
	CALLOC_ARRAY(node, 1);
	oidcpy(&node->entry.oid, oid);
	oidcpy(&node->new, oid);
	node->data = (struct metacommit_data)METACOMMIT_DATA_INIT;
	type = commit && odb_has_object(p->repo->objects, oid, 0) ?
	       parse_metacommit(p->repo, commit, &node->data, &err) : -1;
	strbuf_release(&err);
	if (type == METACOMMIT_TYPE_NONE ||
	    (type < 0 && (!commit || !commit->object.parsed ||
			  !is_metacommit(p->repo, commit)))) {
		/* A plain commit, or what cannot be read: a version. */
		free_node(node);
		oidset_insert(&p->plain, oid);
		return NULL;
	}
	if (type < 0)
		node->malformed = 1;
	oidmap_put(&p->nodes, node);
	return node;
}

static void push_node(struct purge *p, struct purge_node *node)
{
	ALLOC_GROW(p->stack, p->stack_nr + 1, p->stack_alloc);
	p->stack[p->stack_nr++] = node;
}

static void push_parents(struct purge *p, const struct oid_array *parents)
{
	for (size_t i = 0; i < parents->nr; i++) {
		struct purge_node *parent = node_of(p, &parents->oid[i]);

		if (parent && !parent->expanded)
			push_node(p, parent);
	}
}

static void append_unique(struct oid_array *out, const struct object_id *oid)
{
	for (size_t i = 0; i < out->nr; i++)
		if (oideq(&out->oid[i], oid))
			return;
	oid_array_append(out, oid);
}

/*
 * Append to `out` what stands for the parent `oid` of a metacommit now,
 * and whether an erased version is behind it.
 */
static int rewrite_parent(struct purge *p, const struct object_id *oid,
			  struct oid_array *out)
{
	struct purge_node *node = node_of(p, oid);

	if (!node) {
		if (is_erased(p, oid))
			return 1;
		append_unique(out, oid);
		return 0;
	}
	if (node->removed)
		for (size_t i = 0; i < node->bypass.nr; i++)
			append_unique(out, &node->bypass.oid[i]);
	else
		append_unique(out, &node->new);
	return node->reaches;
}

static int same_oids(const struct oid_array *a, const struct oid_array *b)
{
	if (a->nr != b->nr)
		return 0;
	for (size_t i = 0; i < a->nr; i++)
		if (!oideq(&a->oid[i], &b->oid[i]))
			return 0;
	return 1;
}

/* The message of the metacommit `oid`, to write it again. */
static char *metacommit_message(struct repository *r, const struct object_id *oid)
{
	struct commit *commit = lookup_commit(r, oid);
	const char *buffer, *body;
	char *msg;

	buffer = repo_get_commit_buffer(r, commit, NULL);
	body = buffer ? strstr(buffer, "\n\n") : NULL;
	msg = xstrdup(body ? body + 2 : "change purge");
	repo_unuse_commit_buffer(r, commit, buffer);
	return msg;
}

/* Rewrite `node`, whose parents are rewritten already. */
static int rewrite_node(struct purge *p, struct purge_node *node,
			struct strbuf *err)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	char *msg;
	int reaches = 0, ret;

	if (node->malformed)
		return 0;
	for (size_t i = 0; i < node->data.replace.nr; i++)
		reaches |= rewrite_parent(p, &node->data.replace.oid[i],
					  &data.replace);
	for (size_t i = 0; i < node->data.origin.nr; i++)
		reaches |= rewrite_parent(p, &node->data.origin.oid[i],
					  &data.origin);
	/* is_erased() first: it notes the version as met. */
	node->reaches = is_erased(p, &node->data.content) || reaches;

	if (oidset_contains(&p->erase, &node->data.content)) {
		/* What replaced it replaces what it replaced; no origin. */
		node->removed = 1;
		SWAP(node->bypass, data.replace);
		metacommit_data_clear(&data);
		return 0;
	}
	if (!p->write ||
	    (same_oids(&data.replace, &node->data.replace) &&
	     same_oids(&data.origin, &node->data.origin))) {
		metacommit_data_clear(&data);
		return 0;
	}
	if (!data.replace.nr && !data.origin.nr && !node->data.abandoned) {
		/* As when recorded: a version alone is the commit itself. */
		oidcpy(&node->new, &node->data.content);
		metacommit_data_clear(&data);
		return 0;
	}
	oidcpy(&data.content, &node->data.content);
	data.abandoned = node->data.abandoned;
	msg = metacommit_message(p->repo, &node->entry.oid);
	ret = write_metacommit(p->repo, &data, msg, &node->new, err);
	free(msg);
	metacommit_data_clear(&data);
	return ret;
}

/*
 * Rewrite every metacommit reachable from `head`, parents first: a node
 * is expanded (its parents pushed above it) the first time it is on top
 * of the stack, and rewritten the second time, when they are all done.
 */
static int rewrite_history(struct purge *p, const struct object_id *head,
			   struct strbuf *err)
{
	struct purge_node *node = node_of(p, head);

	if (!node)
		return 0;
	if (!node->expanded)
		push_node(p, node);
	while (p->stack_nr) {
		node = p->stack[p->stack_nr - 1];
		if (node->done) {
			p->stack_nr--;
		} else if (!node->expanded) {
			node->expanded = 1;
			if (!node->malformed) {
				push_parents(p, &node->data.replace);
				push_parents(p, &node->data.origin);
			}
		} else {
			p->stack_nr--;
			node->done = 1;
			if (rewrite_node(p, node, err))
				return -1;
		}
	}
	return 0;
}

/* The content of the change whose head is `head`. */
static const struct object_id *head_content(struct purge *p,
					    const struct object_id *head)
{
	struct purge_node *node = node_of(p, head);

	return node && !node->malformed ? &node->data.content : head;
}

/* Without --force, a version that a change holds is not erased. */
static int check_contents(struct purge *p, const struct string_list *changes,
			  const struct object_id *heads, struct strbuf *err)
{
	int held = 0;

	for (size_t i = 0; i < changes->nr; i++) {
		const struct object_id *content = head_content(p, &heads[i]);

		if (!oidset_contains(&p->erase, content))
			continue;
		if (!held++)
			strbuf_addstr(err, _("these changes hold a version to purge "
					     "as their content (use --force to purge "
					     "it anyway):"));
		strbuf_addf(err, "\n  %s %s",
			    changes->items[i].string + strlen("refs/"),
			    oid_to_hex(content));
	}
	return held ? -1 : 0;
}

/* Where the change whose head was `head` goes; null to delete it. */
static void new_head(struct purge *p, const struct object_id *head,
		     struct object_id *out)
{
	struct purge_node *node = node_of(p, head);

	if (!node) {
		if (is_erased(p, head))
			oidclr(out, p->repo->hash_algo);
		else
			oidcpy(out, head);
	} else if (!node->removed) {
		oidcpy(out, &node->new);
	} else if (node->bypass.nr == 1 && !node->data.abandoned) {
		/* Back to the version before the erased one. */
		oidcpy(out, &node->bypass.oid[0]);
	} else {
		oidclr(out, p->repo->hash_algo);
	}
}

static int reaches_erased(struct purge *p, const struct object_id *head)
{
	struct purge_node *node = node_of(p, head);

	return node ? node->reaches : is_erased(p, head);
}

static void read_heads(struct repository *r, const struct string_list *refnames,
		       struct object_id *heads)
{
	for (size_t i = 0; i < refnames->nr; i++)
		if (refs_read_ref(get_main_ref_store(r),
				  refnames->items[i].string, &heads[i]))
			oidclr(&heads[i], r->hash_algo);
}

static int move_purged_changes(struct purge *p, const struct string_list *changes,
			       const struct object_id *heads,
			       struct purge_result *result, struct strbuf *err)
{
	struct ref_move *moves;
	size_t nr = 0;
	int ret = 0;

	CALLOC_ARRAY(moves, changes->nr);
	for (size_t i = 0; i < changes->nr; i++) {
		struct ref_move *move = &moves[nr];

		if (is_null_oid(&heads[i]))
			continue;
		new_head(p, &heads[i], &move->new);
		if (oideq(&move->new, &heads[i]))
			continue;
		move->refname = changes->items[i].string;
		oidcpy(&move->old, &heads[i]);
		nr++;
	}
	if (nr)
		ret = move_changes(p->repo, moves, nr, "change purge", err);
	for (size_t i = 0; !ret && i < nr; i++)
		string_list_append(is_null_oid(&moves[i].new) ?
				   &result->deleted : &result->rewritten,
				   moves[i].refname);
	free(moves);
	return ret;
}

void purge_result_release(struct purge_result *result)
{
	string_list_clear(&result->rewritten, 0);
	string_list_clear(&result->deleted, 0);
	string_list_clear(&result->remote, 0);
	oid_array_clear(&result->not_found);
}

int purge_versions(struct repository *r, const struct purge_options *opts,
		   struct purge_result *result, struct strbuf *err)
{
	struct purge p = {
		.repo = r,
		.erase = OIDSET_INIT,
		.met = OIDSET_INIT,
		.plain = OIDSET_INIT,
	};
	struct string_list changes = STRING_LIST_INIT_DUP;
	struct string_list remote = STRING_LIST_INIT_DUP;
	struct object_id *heads = NULL, *remote_heads = NULL;
	int ret = -1;

	/* Its --abort would put back what the purge erased. */
	if (change_command_in_progress(r) || evolve_in_progress(r)) {
		strbuf_addstr(err, _("a rebase, am, cherry-pick, revert or evolve is "
				     "in progress; finish or abort it before purging"));
		return -1;
	}
	oidmap_init(&p.nodes, 0);
	for (size_t i = 0; i < opts->versions->nr; i++)
		oidset_insert(&p.erase, &opts->versions->oid[i]);
	change_refnames(r, CHANGE_KIND_LOCAL | CHANGE_KIND_HIDDEN, &changes);
	change_refnames(r, CHANGE_KIND_REMOTE, &remote);
	ALLOC_ARRAY(heads, changes.nr);
	ALLOC_ARRAY(remote_heads, remote.nr);
	read_heads(r, &changes, heads);
	read_heads(r, &remote, remote_heads);

	if (!opts->force && check_contents(&p, &changes, heads, err))
		goto out;
	p.write = 1;
	for (size_t i = 0; i < changes.nr; i++)
		if (rewrite_history(&p, &heads[i], err))
			goto out;
	/* Only to tell which of them still have an erased version. */
	p.write = 0;
	for (size_t i = 0; i < remote.nr; i++)
		if (rewrite_history(&p, &remote_heads[i], err))
			goto out;
	if (move_purged_changes(&p, &changes, heads, result, err))
		goto out;

	for (size_t i = 0; i < remote.nr; i++)
		if (reaches_erased(&p, &remote_heads[i]))
			string_list_append(&result->remote, remote.items[i].string);
	for (size_t i = 0; i < opts->versions->nr; i++)
		if (!oidset_contains(&p.met, &opts->versions->oid[i]))
			append_unique(&result->not_found, &opts->versions->oid[i]);
	ret = 0;
out:
	free(heads);
	free(remote_heads);
	string_list_clear(&changes, 0);
	string_list_clear(&remote, 0);
	free(p.stack);
	oidmap_clear_with_free(&p.nodes, free_node);
	oidset_clear(&p.erase);
	oidset_clear(&p.met);
	oidset_clear(&p.plain);
	return ret;
}
