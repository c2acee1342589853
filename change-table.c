/*
 * The change table: every change (local, remote and hidden) read once,
 * with its head, its content and the refs that reference each commit.
 * Read-only; the graph of versions is built on it in change-graph.c.
 */
#include "git-compat-util.h"
#include "change-table.h"
#include "commit.h"
#include "gettext.h"
#include "metacommit.h"
#include "odb.h"
#include "refs.h"
#include "repository.h"
#include "string-list.h"
#include "strbuf.h"

/*
 * The refnames of the changes that reference one object, in the order
 * they were added: the keys of `refname_to_change_head`, so that one
 * pointer stands for one refname. Most objects have one; the others are
 * the rare aliases.
 */
struct change_table_entry {
	struct oidmap_entry entry;
	const char *first;
	const char **more;
	size_t more_nr, more_alloc;
};

void change_table_init(struct change_table *table)
{
	mem_pool_init(&table->memory_pool, 0);
	oidmap_init(&table->oid_to_changes, 0);
	strmap_init_with_options(&table->refname_to_change_head,
				 &table->memory_pool, 1);
	table->known = NULL;
	table->known_data = NULL;
	table->moved = NULL;
	table->order = NULL;
	table->order_nr = table->order_alloc = 0;
	table->order_unsorted = 0;
}

void change_table_clear(struct change_table *table)
{
	struct oidmap_iter iter;
	struct change_table_entry *entry;

	oidmap_iter_init(&table->oid_to_changes, &iter);
	while ((entry = oidmap_iter_next(&iter)))
		free(entry->more);

	/* The entries and heads themselves live in the memory pool. */
	oidmap_clear(&table->oid_to_changes, 0);
	FREE_AND_NULL(table->order);
	table->order_nr = table->order_alloc = 0;
	table->order_unsorted = 0;
	strmap_clear(&table->refname_to_change_head, 0);
	mem_pool_discard(&table->memory_pool, 0);
}

static void index_change(struct change_table *table,
			 const struct object_id *oid, const char *refname)
{
	struct change_table_entry *entry;

	entry = oidmap_get(&table->oid_to_changes, oid);
	if (!entry) {
		entry = mem_pool_calloc(&table->memory_pool, 1, sizeof(*entry));
		oidcpy(&entry->entry.oid, oid);
		entry->first = refname;
		oidmap_put(&table->oid_to_changes, entry);
		return;
	}
	if (entry->first == refname)
		return;
	for (size_t i = 0; i < entry->more_nr; i++)
		if (entry->more[i] == refname)
			return;
	ALLOC_GROW(entry->more, entry->more_nr + 1, entry->more_alloc);
	entry->more[entry->more_nr++] = refname;
}

static void add_head(struct change_table *table, const char *refname,
		     const struct object_id *head,
		     const struct object_id *content, int abandoned)
{
	struct change_head *change;
	int is_new;

	change = mem_pool_calloc(&table->memory_pool, 1, sizeof(*change));
	oidcpy(&change->head, head);
	oidcpy(&change->content, content);
	change->abandoned = abandoned;
	change->remote = starts_with(refname, "refs/remotes/");
	change->hidden = starts_with(refname, "refs/hiddenmetas/");

	is_new = !strmap_put(&table->refname_to_change_head, refname, change);
	/* The index points to the map's own copy of the refname. */
	refname = strmap_get_entry(&table->refname_to_change_head,
				   refname)->key;
	if (is_new) {
		if (table->order_nr &&
		    strcmp(table->order[table->order_nr - 1], refname) > 0)
			table->order_unsorted = 1;
		ALLOC_GROW(table->order, table->order_nr + 1,
			   table->order_alloc);
		table->order[table->order_nr++] = refname;
	}

	index_change(table, &change->head, refname);
	if (!oideq(&change->content, &change->head))
		index_change(table, &change->content, refname);
}

int change_table_add(struct change_table *table, struct repository *r,
		     const char *refname, struct commit *head,
		     struct strbuf *err)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	int type;

	type = parse_metacommit(r, head, &data, err);
	if (type < 0)
		return -1;
	add_head(table, refname, &head->object.oid,
		 type == METACOMMIT_TYPE_NONE ? &head->object.oid :
		 &data.content,
		 type == METACOMMIT_TYPE_ABANDONED);
	metacommit_data_clear(&data);
	return 0;
}

/*
 * The commit a change ref points to, or NULL if it is not a commit. This is
 * done for every change, so the object is read once, by repo_parse_commit(),
 * without the hash check of parse_object() or peeling tags (a change never
 * points to a tag).
 */
static struct commit *lookup_change_commit(struct repository *r,
					   const struct object_id *oid)
{
	struct commit *commit;

	if (odb_read_object_info(r->objects, oid, NULL) != OBJ_COMMIT)
		return NULL;
	commit = lookup_commit(r, oid);
	if (!commit || repo_parse_commit(r, commit))
		return NULL;
	return commit;
}

struct add_change_cb {
	struct change_table *table;
	struct repository *repo;
};

void change_table_show_moved(struct change_table *table,
			     struct strmap *moved)
{
	table->moved = moved;
}

static int add_change_at(const struct reference *ref, void *cb_data)
{
	struct add_change_cb *cb = cb_data;
	struct change_table *table = cb->table;
	struct strbuf err = STRBUF_INIT;
	struct object_id content;
	struct commit *commit;
	int abandoned;

	if (table->known &&
	    !table->known(ref->oid, &content, &abandoned, table->known_data)) {
		add_head(table, ref->name, ref->oid, &content, abandoned);
		return 0;
	}
	/*
	 * Anybody can put anything under refs/metas/ (e.g. with update-ref);
	 * that must not prevent working with the other changes.
	 */
	commit = lookup_change_commit(cb->repo, ref->oid);
	if (!commit)
		warning(_("ignoring '%s': it does not point to a commit"),
			ref->name);
	else if (change_table_add(cb->table, cb->repo, ref->name, commit, &err))
		warning(_("ignoring '%s': %s"), ref->name, err.buf);

	strbuf_release(&err);
	return 0;
}

/* As add_change_at(), at where table->moved says the change would be. */
static int add_change_ref(const struct reference *ref, void *cb_data)
{
	struct add_change_cb *cb = cb_data;
	const struct object_id *moved = NULL;
	struct reference at = *ref;

	if (cb->table->moved)
		moved = strmap_get(cb->table->moved, ref->name);
	if (!moved)
		return add_change_at(ref, cb_data);
	if (is_null_oid(moved))
		return 0;
	at.oid = moved;
	return add_change_at(&at, cb_data);
}

/* Whether `refname` names a change of one of the CHANGE_KIND_* `kinds`. */
static int is_change_of_kinds(const char *refname, unsigned kinds)
{
	return ((kinds & CHANGE_KIND_LOCAL) &&
		starts_with(refname, CHANGES_REF_PREFIX)) ||
	       ((kinds & CHANGE_KIND_HIDDEN) &&
		starts_with(refname, HIDDEN_CHANGES_REF_PREFIX)) ||
	       ((kinds & CHANGE_KIND_REMOTE) && remote_change_name(refname));
}

/* The changes that table->moved creates: they have no ref to be found by. */
static void add_created_changes(struct add_change_cb *cb, unsigned kinds)
{
	struct hashmap_iter iter;
	struct strmap_entry *entry;

	if (!cb->table->moved)
		return;
	strmap_for_each_entry(cb->table->moved, &iter, entry) {
		struct reference ref = {
			.name = entry->key,
			.oid = entry->value,
		};

		if (!is_null_oid(ref.oid) &&
		    is_change_of_kinds(ref.name, kinds) &&
		    !strmap_contains(&cb->table->refname_to_change_head,
				     ref.name))
			add_change_at(&ref, cb);
	}
}

struct change_ref_filter {
	refs_for_each_cb *fn;
	void *cb_data;
};

/* Remote changes are under refs/remotes/<remote>/metas/. */
static int filter_remote_change_ref(const struct reference *ref, void *cb_data)
{
	struct change_ref_filter *filter = cb_data;

	if (!remote_change_name(ref->name))
		return 0;
	return filter->fn(ref, filter->cb_data);
}

/* Call `fn` for each ref of a change of the given kinds. */
static void for_each_change_ref(struct repository *r, unsigned kinds,
				refs_for_each_cb fn, void *cb_data)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct refs_for_each_ref_options local = {
		.prefix = CHANGES_REF_PREFIX,
	};
	struct refs_for_each_ref_options hidden = {
		.prefix = HIDDEN_CHANGES_REF_PREFIX,
	};
	struct refs_for_each_ref_options remote = {
		.prefix = "refs/remotes/",
	};
	struct change_ref_filter filter = {
		.fn = fn,
		.cb_data = cb_data,
	};

	if (kinds & CHANGE_KIND_LOCAL)
		refs_for_each_ref_ext(refs, fn, cb_data, &local);
	if (kinds & CHANGE_KIND_HIDDEN)
		refs_for_each_ref_ext(refs, fn, cb_data, &hidden);
	if (kinds & CHANGE_KIND_REMOTE)
		refs_for_each_ref_ext(refs, filter_remote_change_ref, &filter,
				      &remote);
}

void change_table_add_kinds(struct change_table *table, struct repository *r,
			    unsigned kinds)
{
	struct add_change_cb cb = {
		.table = table,
		.repo = r,
	};

	for_each_change_ref(r, kinds, add_change_ref, &cb);
	add_created_changes(&cb, kinds);
}

void change_table_add_ref(struct change_table *table, struct repository *r,
			  const char *refname)
{
	struct add_change_cb cb = {
		.table = table,
		.repo = r,
	};
	struct object_id oid = { 0 };
	struct reference ref = {
		.name = refname,
		.oid = &oid,
	};

	if (strmap_contains(&table->refname_to_change_head, refname))
		return;
	/* A change that would be created has no ref to read. */
	if ((table->moved && strmap_contains(table->moved, refname)) ||
	    !refs_read_ref(get_main_ref_store(r), refname, &oid))
		add_change_ref(&ref, &cb);
}

struct collect_refnames_cb {
	struct repository *repo;
	struct string_list *out;
};

static int collect_refname(const struct reference *ref, void *cb_data)
{
	struct collect_refnames_cb *cb = cb_data;

	if (odb_read_object_info(cb->repo->objects, ref->oid, NULL) != OBJ_COMMIT)
		warning(_("ignoring '%s': it does not point to a commit"),
			ref->name);
	else
		string_list_append(cb->out, ref->name);
	return 0;
}

void change_refnames(struct repository *r, unsigned kinds,
		     struct string_list *out)
{
	struct collect_refnames_cb cb = {
		.repo = r,
		.out = out,
	};

	for_each_change_ref(r, kinds, collect_refname, &cb);
	string_list_sort(out);
}

void change_table_add_all_visible(struct change_table *table,
				  struct repository *r)
{
	change_table_add_kinds(table, r, CHANGE_KIND_LOCAL);
}

struct change_head *change_table_get(struct change_table *table,
				     const char *refname)
{
	return strmap_get(&table->refname_to_change_head, refname);
}

void change_table_refnames(struct change_table *table, struct string_list *out)
{
	int sorted = !out->nr && !table->order_unsorted;

	/* Refs come sorted: then there is nothing to sort. */
	ALLOC_GROW(out->items, st_add(out->nr, table->order_nr), out->alloc);
	for (size_t i = 0; i < table->order_nr; i++)
		string_list_append(out, table->order[i]);
	if (!sorted)
		string_list_sort(out);
}

int change_table_for_each_referencing(struct change_table *table,
				      const struct object_id *oid,
				      each_change_fn fn, void *cb_data)
{
	struct change_table_entry *entry;
	int ret;

	entry = oidmap_get(&table->oid_to_changes, oid);
	if (!entry)
		return 0;
	ret = fn(entry->first, cb_data);
	for (size_t i = 0; !ret && i < entry->more_nr; i++)
		ret = fn(entry->more[i], cb_data);
	return ret;
}

int change_table_has_change_referencing(struct change_table *table,
					const struct object_id *oid)
{
	return !!oidmap_get(&table->oid_to_changes, oid);
}
