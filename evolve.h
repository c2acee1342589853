#ifndef EVOLVE_H
#define EVOLVE_H

#include "string-list.h"

struct repository;
struct strbuf;

/*
 * "git evolve": rebase every change whose parent is obsolete (an "orphan")
 * onto the newest version of that parent, in dependency order, until no
 * change has an obsolete parent. See Documentation/technical/evolve.adoc.
 */

enum evolve_step_type {
	/* The change was rebased onto `onto`. */
	EVOLVE_STEP_REBASE,
	/* The change became empty when rebased onto `onto`: it is deleted. */
	EVOLVE_STEP_DELETE_EMPTY,
	/* The change is abandoned: its commit is dropped from history. */
	EVOLVE_STEP_DROP_ABANDONED,
};

struct evolve_step {
	enum evolve_step_type type;
	/* The refnames of the change (several if it has aliases). */
	struct string_list refnames;
	/* What it was rebased onto: a change's refname or an object name. */
	char *onto;
};

struct evolve_options {
	/* Compute and report the steps, but write nothing. */
	int dry_run;
};

struct evolve_result {
	struct evolve_step *steps;
	size_t steps_nr, steps_alloc;
	/* Refs (other than changes) moved to follow their commit. */
	struct string_list moved_refs;
};

#define EVOLVE_RESULT_INIT { .moved_refs = STRING_LIST_INIT_DUP }

void evolve_result_release(struct evolve_result *result);

/*
 * Evolve all changes under refs/metas/. Every rebase is done in memory;
 * the changes, and the branches that point at a rewritten commit, are then
 * updated in one ref transaction, and HEAD with the working tree and index,
 * if it points at a rewritten commit (local modifications are stashed and
 * reapplied, as "rebase --autostash" does).
 *
 * Nothing is written if evolve cannot complete: a conflict, a divergent or
 * a cyclic change, or a merge commit to rebase. Then -1 is returned with a
 * message in `err`; 0 on success. `result` lists what was (or, with
 * `dry_run`, would be) done.
 */
int evolve_changes(struct repository *r, const struct evolve_options *opts,
		   struct evolve_result *result, struct strbuf *err);

#endif /* EVOLVE_H */
