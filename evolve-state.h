#ifndef EVOLVE_STATE_H
#define EVOLVE_STATE_H

#include "hash.h"

struct repository;

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

/*
 * The commits a stopped evolve has made so far, which gc keeps: the first
 * object name of each line of this file in $GIT_DIR.
 */
#define EVOLVE_SAVED_FILE "evolve/done"

/* Whether a stopped evolve waits for --continue, --skip or --abort. */
int evolve_in_progress(struct repository *r);

/*
 * For "git status": whether an evolve is stopped and, as far as its
 * state says, where: `current` is set to the change whose rebase
 * conflicted ("metas/foo", or the abbreviated object name of a commit
 * without a change) and `onto` to the abbreviated object name of the
 * commit it goes onto, both newly allocated, or to NULL if that file of
 * the state is missing or damaged; `head_moved` to whether HEAD left that
 * commit for another than a commit made on it (--continue then refuses
 * to go on). Never dies.
 */
int evolve_describe_stop(struct repository *r, char **current, char **onto,
			 int *head_moved);

/*
 * Whether "git evolve --continue" takes `commit` as the resolution of the
 * stopped evolve, as "git rebase --continue" takes what was committed at
 * a stop: its only parent is the commit evolve stopped onto. "git commit"
 * starts no change for it, since --continue records it as the new
 * version of the change that conflicted.
 */
int evolve_takes_commit(struct repository *r, const struct object_id *commit);

/*
 * If an evolve stopped on a conflict while moving a commit onto `onto`,
 * set `current` to that commit, which a commit made on `onto` resolves
 * (see evolve_takes_commit()), and return 1; otherwise return 0.
 */
int evolve_stopped_onto(struct repository *r, const struct object_id *onto,
			struct object_id *current);

/* The path of the file `name` of the state (free it). */
char *evolve_state_path(struct repository *r, const char *name);

/* Read the object name in the file `name`: 0, or -1 if there is none. */
int evolve_read_state_oid(struct repository *r, const char *name,
			  struct object_id *oid);

/* Write `value` to the file `name`, dying on error as write_file() does. */
void evolve_write_state(struct repository *r, const char *name,
			const char *value);

/* Remove the state: the evolve is over. */
void evolve_remove_state(struct repository *r);

/*
 * Whether `oid` is a commit made on `onto`, its only parent, as the
 * resolution of a stop is (see evolve_takes_commit()).
 */
int evolve_made_on(struct repository *r, const struct object_id *oid,
		   const struct object_id *onto);

#endif /* EVOLVE_STATE_H */
