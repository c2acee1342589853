#ifndef CHANGE_TABLE_H
#define CHANGE_TABLE_H

#include "mem-pool.h"
#include "oidmap.h"
#include "strmap.h"

struct commit;
struct repository;
struct strbuf;
struct string_list;

/*
 * A change table holds the heads of a set of changes (refs under
 * refs/metas/) and maps a commit to the changes that reference it
 * directly: the changes whose head is that commit, and those whose head is
 * a metacommit with that commit as its content. Commits further down the
 * history of a change are not indexed.
 */

/* The head of a single change. */
struct change_head {
	/* What the change ref points to: a commit or a metacommit. */
	struct object_id head;
	/* The latest content commit of the change; never a metacommit. */
	struct object_id content;
	/*
	 * abandoned: the content commit should be removed from history.
	 * hidden: an inactive change from refs/hiddenmetas/.
	 * remote: a change from refs/remotes/<remote>/metas/.
	 */
	unsigned abandoned:1,
		 hidden:1,
		 remote:1;
};

/*
 * What the head `head` of a change is, when it is known without reading
 * it (say from a cache): fill `content` and `*abandoned` and return 0,
 * or return -1 to have the head read.
 */
typedef int (*change_head_known_fn)(const struct object_id *head,
				    struct object_id *content,
				    int *abandoned, void *data);

/* All fields are private: use the functions below, but for `known`. */
struct change_table {
	/* Owns the change_head and index entries. */
	struct mem_pool memory_pool;
	/* object_id -> set of refnames referencing it. */
	struct oidmap oid_to_changes;
	/* refname -> struct change_head. */
	struct strmap refname_to_change_head;
	/* If set, asked first about each head the table reads. */
	change_head_known_fn known;
	void *known_data;
	/*
	 * If set, refname -> struct object_id: the head each of those
	 * changes would have after moves not made (a dry run's), read in
	 * place of the ref (see change_table_show_moved()).
	 */
	struct strmap *moved;
	/* The keys of refname_to_change_head in the order they came. */
	const char **order;
	size_t order_nr, order_alloc;
	/* Whether that order is not sorted. */
	unsigned order_unsorted:1;
};

void change_table_init(struct change_table *table);
void change_table_clear(struct change_table *table);

/*
 * Have the functions below that add changes to the table from their refs
 * (not change_refnames(), which builds none) add them as `moved`
 * (refname -> struct object_id) says they would be: a change
 * listed there has that head instead of its ref's value, and is added
 * even if it has no ref yet. For a dry run, which tells what a command
 * would do after moves that it does not make. `moved` must outlive the
 * table's loading.
 */
void change_table_show_moved(struct change_table *table,
			     struct strmap *moved);

/*
 * Add the change `refname` whose head is `head`. Returns -1 with a message in
 * `err` if `head` is a malformed metacommit, 0 otherwise.
 */
int change_table_add(struct change_table *table, struct repository *r,
		     const char *refname, struct commit *head,
		     struct strbuf *err);

/*
 * Add all local changes (refs/metas/). Refs that do not point to a commit,
 * or point to a malformed metacommit, are skipped with a warning.
 */
void change_table_add_all_visible(struct change_table *table,
				  struct repository *r);

/*
 * Add the change `refname` if it exists and is not in the table yet (a
 * ref that points to no commit, or to a malformed metacommit, is skipped
 * with a warning, as the functions that add every change skip it): for
 * the questions about a few changes, which must not cost every change.
 */
void change_table_add_ref(struct change_table *table, struct repository *r,
			  const char *refname);

#define CHANGE_KIND_LOCAL  (1 << 0) /* refs/metas/ */
#define CHANGE_KIND_REMOTE (1 << 1) /* refs/remotes/<remote>/metas/ */
#define CHANGE_KIND_HIDDEN (1 << 2) /* refs/hiddenmetas/ */

/*
 * Add the changes of the given kinds (CHANGE_KIND_* flags), skipping bad
 * refs with a warning as change_table_add_all_visible() does.
 */
void change_table_add_kinds(struct change_table *table, struct repository *r,
			    unsigned kinds);

/*
 * Append to `out` the refnames of the changes of the given kinds, sorted,
 * without building a table: only the type of the objects they point to is
 * checked (refs that do not point to a commit are skipped with a warning),
 * not whether a metacommit is well-formed. This is what listing the names
 * of 10,000 changes can afford.
 */
void change_refnames(struct repository *r, unsigned kinds,
		     struct string_list *out);

/* Return the head of the change `refname`, or NULL if there is none. */
struct change_head *change_table_get(struct change_table *table,
				     const char *refname);

/*
 * Append the refnames of all changes in the table to `out`, then sort it.
 * They are the table's own strings (valid until it is cleared) if `out`
 * does not duplicate its strings.
 */
void change_table_refnames(struct change_table *table, struct string_list *out);

typedef int each_change_fn(const char *refname, void *cb_data);

/*
 * Call `fn` for each change referencing `oid` (see above), in the order
 * they were added to the table (by refname, for the functions that add
 * every change). Stops at and returns the first non-zero return value of
 * `fn`.
 */
int change_table_for_each_referencing(struct change_table *table,
				      const struct object_id *oid,
				      each_change_fn fn, void *cb_data);

/* Return 1 if some change references `oid`, 0 otherwise. */
int change_table_has_change_referencing(struct change_table *table,
					const struct object_id *oid);

#endif /* CHANGE_TABLE_H */
