#ifndef EVOLVE_MERGE_H
#define EVOLVE_MERGE_H

/*
 * Merging two versions of a change into one that replaces both, for
 * "git merge --amend" and "git evolve --auto-merge": merged against
 * their common earlier version (the merge base of the change graph) and
 * written as a commit like the first, which evolve.c records as a
 * rewrite of both.
 */

struct commit;
struct commit_list;
struct object_id;
struct repository;
struct strbuf;

/*
 * Append to `parents` the parents of the commit that replaces both
 * versions `a` and `b` of a change: theirs, without duplicates, never
 * `a` or `b` themselves.
 */
void evolve_merged_parents(struct commit *a, struct commit *b,
			   struct commit_list **parents);

/*
 * Write a commit of `tree` with `parents` in place of `like`: with its
 * message and author (the committer is whoever runs this). Returns 0 and
 * sets `out`, or -1.
 */
int evolve_commit_like(struct repository *r, struct commit *like,
		       const struct object_id *tree, struct commit_list *parents,
		       struct object_id *out);

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
int evolve_merge_versions(struct repository *r, struct commit *a,
			  struct commit *b, const char *b_label,
			  int leave_conflicts, struct object_id *merged,
			  struct strbuf *err);

#endif /* EVOLVE_MERGE_H */
