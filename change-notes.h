#ifndef CHANGE_NOTES_H
#define CHANGE_NOTES_H

#include "hash.h"

/*
 * What commands note about changes for later, in files of the common
 * directory that the worktrees share, so that "git status" and "git
 * evolve" need not read every change: the commits a rewrite left
 * changes built on, the divergences a commit or fetch found, and the
 * commits a fetch brought that are newer versions of a change by its
 * change id. The files are only appended to, and read back as
 * untrusted: every line is checked, and only the newest are read.
 */

struct oid_array;
struct repository;
struct strbuf;
struct string_list;

/*
 * The commits rewritten by a command that left changes built on them, so
 * that "git status" can count those orphans without reading every change.
 * One object name per line, appended; evolve removes the file when it has
 * nothing left to rebase. Read back, it is untrusted: lines that are not
 * object names are skipped, and only the newest ORPHANED_MAX are read.
 */
#define ORPHANED_FILE "evolve-orphaned"
#define ORPHANED_MAX 64

/*
 * The divergences a command made (an amend of a version that another
 * change had already replaced, a fetch of a version amended on both
 * sides), so that "git status" can count those still unresolved without
 * reading every change. One "<refname> <refname>" line per divergence,
 * the first a local change, or "<refname> <commit>" for a fetched commit
 * with the change id of that change; appended, and removed by evolve when
 * nothing is left to evolve. Read back, it is untrusted: lines that do
 * not name a change and a change or commit are skipped, only the newest
 * DIVERGENT_MAX are read, and the refs are only read.
 */
#define DIVERGENT_FILE "evolve-divergent"
#define DIVERGENT_MAX 64

/*
 * The commits a fetch brought on a branch that are newer versions of a
 * change by its change id, which no metacommit records: the branch had
 * the change's commit (or a newer version noted before) and moved to a
 * commit with its id, as when a collaborator amends it with Jujutsu or
 * an unpatched Git. One "<refname> <commit> <head>" line each, appended:
 * the local change, the fetched commit, and the head the change had
 * then. The change graph takes the newest noted for a change still at
 * that head as its newest version (change-graph.c, catch_up_by_id());
 * once the change moves, its lines are stale. Read
 * back, lines are untrusted: only the newest NEWER_MAX are read, those
 * that do not parse are skipped, and the callers check the rest.
 */
#define NEWER_FILE "evolve-newer"
#define NEWER_MAX 64

/* A line of NEWER_FILE. */
struct newer_version {
	struct object_id fetched;
	struct object_id head;
};

/* Note the commits `replaced`, which changes are still built on. */
void note_orphaned(struct repository *r, const struct oid_array *replaced);

/* Read the noted orphaned commits, the newest ORPHANED_MAX, into `replaced`. */
void read_orphaned(struct repository *r, struct oid_array *replaced);

/*
 * Read the file `name` of the common directory into `buf`, split into
 * `lines`; returns the index of the first of the newest `max` lines
 * (the older ones are not read: the file is only appended to).
 */
size_t read_noted_lines(struct repository *r, const char *name,
			size_t max, struct strbuf *buf,
			struct string_list *lines);

/*
 * Note that the change `local` diverges from `other`: another change's
 * refname, or the object name of a fetched commit that has its change id.
 */
void note_divergent(struct repository *r, const char *local,
		    const char *other);

/*
 * Note that `fetched` is newer than the change `local`, whose head was
 * `head` when the fetch brought it.
 */
void note_newer(struct repository *r, const char *local,
		const struct object_id *fetched,
		const struct object_id *head);

/*
 * Read NEWER_FILE into `out`: one item per change refname, the newest
 * line of it, its util a struct newer_version (freed by clearing `out`
 * with free_util).
 */
void read_noted_newer(struct repository *r, struct string_list *out);

#endif /* CHANGE_NOTES_H */
