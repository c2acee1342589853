/*
 * Merging two versions of a change (see evolve-merge.h): the merge
 * against their common earlier version with merge-ort, the commit that
 * replaces both, and its record through the change writer.
 */
/* for get_commit_output_encoding(), which depends on the config */
#define USE_THE_REPOSITORY_VARIABLE

#include "git-compat-util.h"
#include "evolve-merge.h"
#include "change-graph.h"
#include "change-writer.h"
#include "commit-reach.h"
#include "commit.h"
#include "environment.h"
#include "gettext.h"
#include "hex.h"
#include "lockfile.h"
#include "merge-ort.h"
#include "odb.h"
#include "read-cache-ll.h"
#include "repository.h"
#include "strbuf.h"
#include "tree.h"

int evolve_commit_like(struct repository *r, struct commit *like,
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

int evolve_merge_versions(struct repository *r, struct commit *a,
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
	if (evolve_commit_like(r, a, &result.tree->object.oid, parents,
			       merged)) {
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
