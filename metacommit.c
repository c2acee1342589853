#include "git-compat-util.h"
#include "metacommit.h"
#include "change-table.h"
#include "commit.h"
#include "gettext.h"
#include "hex.h"
#include "odb.h"
#include "refs.h"
#include "repository.h"
#include "string-list.h"
#include "strbuf.h"

/* Change names derived from a subject are cut to this many characters. */
#define CHANGE_NAME_MAX 20

void metacommit_data_clear(struct metacommit_data *data)
{
	memset(&data->content, 0, sizeof(data->content));
	oid_array_clear(&data->replace);
	oid_array_clear(&data->origin);
	data->abandoned = 0;
}

/*
 * Parse the value of the parent-type header, `types` of length `len`, of
 * `commit` into `data`. Every parent must have exactly one single-letter
 * type, the first parent being the content or abandoned one.
 */
static int parse_parent_types(struct commit *commit, const char *types,
			      size_t len, struct metacommit_data *data,
			      struct strbuf *err)
{
	const struct commit_list *parent = commit->parents;
	const char *p = types, *end = types + len;
	int ret = METACOMMIT_TYPE_NONE;

	while (p < end) {
		char type = *p++;

		if (p < end && (*p++ != ' ' || p == end))
			goto malformed;
		if (!parent) {
			strbuf_addf(err, _("metacommit %s has more parent types than parents"),
				    oid_to_hex(&commit->object.oid));
			return -1;
		}

		if (ret == METACOMMIT_TYPE_NONE) {
			if (type == 'c')
				ret = METACOMMIT_TYPE_NORMAL;
			else if (type == 'a')
				ret = METACOMMIT_TYPE_ABANDONED;
			else
				goto malformed;
			oidcpy(&data->content, &parent->item->object.oid);
			data->abandoned = ret == METACOMMIT_TYPE_ABANDONED;
		} else if (type == 'r') {
			oid_array_append(&data->replace, &parent->item->object.oid);
		} else if (type == 'o') {
			oid_array_append(&data->origin, &parent->item->object.oid);
		} else {
			goto malformed;
		}
		parent = parent->next;
	}

	if (ret == METACOMMIT_TYPE_NONE)
		goto malformed;
	if (parent) {
		strbuf_addf(err, _("metacommit %s has more parents than parent types"),
			    oid_to_hex(&commit->object.oid));
		return -1;
	}
	return ret;

malformed:
	strbuf_addf(err, _("metacommit %s has a malformed %s header '%.*s'"),
		    oid_to_hex(&commit->object.oid), METACOMMIT_HEADER,
		    (int)len, types);
	return -1;
}

int parse_metacommit(struct repository *r, struct commit *commit,
		     struct metacommit_data *data, struct strbuf *err)
{
	struct metacommit_data scratch = METACOMMIT_DATA_INIT;
	const char *buffer, *types;
	size_t len;
	int ret;

	if (repo_parse_commit(r, commit)) {
		strbuf_addf(err, _("could not parse commit %s"),
			    oid_to_hex(&commit->object.oid));
		return -1;
	}

	if (!data)
		data = &scratch;
	buffer = repo_get_commit_buffer(r, commit, NULL);
	/* This only looks at the header, never at the message. */
	types = find_commit_header(buffer, METACOMMIT_HEADER, &len);
	if (!types)
		ret = METACOMMIT_TYPE_NONE;
	else
		ret = parse_parent_types(commit, types, len, data, err);
	repo_unuse_commit_buffer(r, commit, buffer);

	if (ret < 0 || data == &scratch)
		metacommit_data_clear(data);
	return ret;
}

static int append_parent(struct repository *r, const struct object_id *oid,
			 struct commit_list ***tail, struct strbuf *err)
{
	struct commit *commit = lookup_commit_reference_gently(r, oid, 1);

	if (!commit) {
		strbuf_addf(err, _("%s is not a commit"), oid_to_hex(oid));
		return -1;
	}
	*tail = &commit_list_insert(commit, *tail)->next;
	return 0;
}

int write_metacommit(struct repository *r, const struct metacommit_data *data,
		     const char *message, struct object_id *result,
		     struct strbuf *err)
{
	struct commit_list *parents = NULL, **tail = &parents;
	struct commit_extra_header header = {
		.key = (char *)METACOMMIT_HEADER,
	};
	struct strbuf types = STRBUF_INIT;
	struct strbuf msg = STRBUF_INIT;
	struct object_id tree;
	int ret = -1;

	/*
	 * The empty tree is known to every repository without being stored,
	 * but fsck and other repositories we push to need the real object.
	 */
	if (odb_write_object(r->objects, "", 0, OBJ_TREE, &tree)) {
		strbuf_addstr(err, _("unable to write the empty tree"));
		goto out;
	}

	if (append_parent(r, &data->content, &tail, err))
		goto out;
	strbuf_addch(&types, data->abandoned ? 'a' : 'c');
	for (size_t i = 0; i < data->replace.nr; i++) {
		if (append_parent(r, &data->replace.oid[i], &tail, err))
			goto out;
		strbuf_addstr(&types, " r");
	}
	for (size_t i = 0; i < data->origin.nr; i++) {
		if (append_parent(r, &data->origin.oid[i], &tail, err))
			goto out;
		strbuf_addstr(&types, " o");
	}
	header.value = types.buf;
	header.len = types.len;

	strbuf_addstr(&msg, message);
	strbuf_complete_line(&msg);
	if (commit_tree_extended(msg.buf, msg.len, &tree, parents, result,
				 NULL, NULL, NULL, &header)) {
		strbuf_addstr(err, _("unable to write metacommit"));
		goto out;
	}
	ret = 0;

out:
	commit_list_free(parents);
	strbuf_release(&types);
	strbuf_release(&msg);
	return ret;
}

void strbuf_add_change_refname(struct strbuf *refname, const char *name)
{
	if (!starts_with(name, CHANGES_REF_PREFIX))
		strbuf_addstr(refname, starts_with(name, "metas/") ?
			      "refs/" : CHANGES_REF_PREFIX);
	strbuf_addstr(refname, name);
}

/*
 * Append a change name derived from the subject of `commit` to `out`: its
 * first characters, with each run of whitespace or slashes turned into a
 * single dash, so that the name is a single, valid refname component.
 */
static void default_change_name(struct repository *r, struct commit *commit,
				struct strbuf *out)
{
	const char *buffer = repo_get_commit_buffer(r, commit, NULL);
	struct strbuf words = STRBUF_INIT;
	const char *subject;
	size_t len = find_commit_subject(buffer, &subject);
	size_t start = out->len;

	for (size_t i = 0; i < len && words.len < CHANGE_NAME_MAX; i++) {
		if (!isspace(subject[i]) && subject[i] != '/')
			strbuf_addch(&words, subject[i]);
		else if (words.len && words.buf[words.len - 1] != '-')
			strbuf_addch(&words, '-');
	}
	repo_unuse_commit_buffer(r, commit, buffer);

	sanitize_refname_component(words.buf, out);
	while (out->len > start && strchr("-.", out->buf[out->len - 1]))
		strbuf_setlen(out, out->len - 1);
	if (out->len == start)
		strbuf_addstr(out, "change");
	strbuf_release(&words);
}

/* Whether `refname` exists, or cannot be created because of another ref. */
static int change_name_taken(struct ref_store *refs, const char *refname)
{
	struct strbuf err = STRBUF_INIT;
	int taken = refs_ref_exists(refs, refname) ||
		refs_verify_refname_available(refs, refname, NULL, NULL, 0, &err);

	strbuf_release(&err);
	return taken;
}

/*
 * Compute the refname of a new change for `content`. The design leaves the
 * naming scheme open; a numeric suffix keeps the name unique.
 */
static void new_change_refname(struct repository *r, struct commit *content,
			       struct strbuf *refname)
{
	struct ref_store *refs = get_main_ref_store(r);
	size_t base_len;

	strbuf_addstr(refname, CHANGES_REF_PREFIX);
	default_change_name(r, content, refname);
	base_len = refname->len;
	for (int suffix = 2; change_name_taken(refs, refname->buf); suffix++) {
		strbuf_setlen(refname, base_len);
		strbuf_addf(refname, "-%d", suffix);
	}
}

struct resolve_cb {
	struct change_table *table;
	struct oid_array *heads;
	/* Changes to advance (util: their current head), or NULL. */
	struct string_list *changes;
};

static int resolve_one(const char *refname, void *cb_data)
{
	struct resolve_cb *cb = cb_data;
	struct change_head *head = change_table_get(cb->table, refname);

	if (!oid_array_readonly_contains(cb->heads, &head->head))
		oid_array_append(cb->heads, &head->head);
	if (cb->changes && !unsorted_string_list_has_string(cb->changes, refname))
		string_list_append(cb->changes, refname)->util = &head->head;
	return 0;
}

/*
 * Replace each commit in `in` by the heads of the changes referencing it, so
 * that the new metacommit continues their history, and collect those changes
 * in `changes` if it is not NULL. A commit without a change is kept as is.
 */
static void resolve_parents(struct change_table *table,
			    const struct oid_array *in, struct oid_array *out,
			    struct string_list *changes)
{
	struct resolve_cb cb = {
		.table = table,
		.heads = out,
		.changes = changes,
	};

	for (size_t i = 0; i < in->nr; i++) {
		const struct object_id *oid = &in->oid[i];

		if (change_table_has_change_referencing(table, oid))
			change_table_for_each_referencing(table, oid,
							  resolve_one, &cb);
		else if (!oid_array_readonly_contains(out, oid))
			oid_array_append(out, oid);
	}
}

static int is_trivial_metacommit(const struct metacommit_data *data)
{
	return !data->replace.nr && !data->origin.nr && !data->abandoned;
}

static int check_content(struct repository *r, const struct object_id *oid,
			 struct commit **content, struct strbuf *err)
{
	int type;

	*content = lookup_commit_reference_gently(r, oid, 1);
	if (!*content) {
		strbuf_addf(err, _("%s is not a commit"), oid_to_hex(oid));
		return -1;
	}
	type = parse_metacommit(r, *content, NULL, err);
	if (type < 0)
		return -1;
	if (type != METACOMMIT_TYPE_NONE) {
		strbuf_addf(err, _("metacommit %s cannot be the content of a change"),
			    oid_to_hex(oid));
		return -1;
	}
	return 0;
}

static int update_changes(struct repository *r, const struct string_list *to_update,
			  const struct object_id *target, const char *reason,
			  struct strbuf *err)
{
	struct ref_transaction *transaction;
	const struct string_list_item *item;
	int ret = -1;

	transaction = ref_store_transaction_begin(get_main_ref_store(r), 0, err);
	if (!transaction)
		return -1;

	for_each_string_list_item(item, to_update) {
		/* Create if there was no change, never overwrite a newer one. */
		if (item->util) {
			if (ref_transaction_update(transaction, item->string,
						   target, item->util, NULL, NULL,
						   0, reason, err))
				goto out;
		} else if (ref_transaction_create(transaction, item->string,
						  target, NULL, 0, reason, err)) {
			goto out;
		}
	}
	if (ref_transaction_commit(transaction, err))
		goto out;
	ret = 0;

out:
	ref_transaction_free(transaction);
	return ret;
}

static int record_in_table(struct repository *r, struct change_table *table,
			   const struct metacommit_data *metacommit,
			   const char *change, unsigned flags, const char *reason,
			   struct string_list *changes, struct strbuf *err)
{
	struct metacommit_data resolved = METACOMMIT_DATA_INIT;
	/* util: the expected current head, or NULL to create the change */
	struct string_list to_update = STRING_LIST_INIT_DUP;
	struct strbuf refname = STRBUF_INIT;
	struct commit *content;
	struct object_id target;
	int ret = -1;

	if (check_content(r, &metacommit->content, &content, err))
		goto out;

	oidcpy(&resolved.content, &metacommit->content);
	resolved.abandoned = metacommit->abandoned;
	resolve_parents(table, &metacommit->replace, &resolved.replace,
			(change || (flags & METACOMMIT_UPDATE_NOAPPEND)) ?
			NULL : &to_update);
	resolve_parents(table, &metacommit->origin, &resolved.origin, NULL);

	if (change) {
		struct change_head *head;

		strbuf_add_change_refname(&refname, change);
		if (check_refname_format(refname.buf, 0)) {
			strbuf_addf(err, _("'%s' is not a valid change name"), change);
			goto out;
		}
		head = change_table_get(table, refname.buf);
		if (head && is_trivial_metacommit(&resolved) &&
		    oideq(&head->head, &resolved.content)) {
			ret = 0; /* already up to date */
			goto out;
		}
		if (head && !(flags & METACOMMIT_UPDATE_FORCE) &&
		    !oid_array_readonly_contains(&resolved.replace, &head->head)) {
			strbuf_addf(err, _("non-fast-forward update to '%s'"),
				    refname.buf);
			goto out;
		}
		string_list_append(&to_update, refname.buf)->util =
			head ? &head->head : NULL;
	} else if (!to_update.nr) {
		/* Nothing to record if a change already has this content. */
		if (is_trivial_metacommit(&resolved) &&
		    change_table_has_change_referencing(table, &resolved.content)) {
			ret = 0;
			goto out;
		}
		new_change_refname(r, content, &refname);
		string_list_append(&to_update, refname.buf)->util = NULL;
	}

	/* A change without history points at its content directly. */
	if (is_trivial_metacommit(&resolved))
		oidcpy(&target, &resolved.content);
	else if (write_metacommit(r, &resolved, reason, &target, err))
		goto out;

	if (update_changes(r, &to_update, &target, reason, err))
		goto out;

	if (changes) {
		struct string_list_item *item;

		for_each_string_list_item(item, &to_update)
			string_list_append(changes, item->string)->util =
				item->util ? oiddup(item->util) : NULL;
	}
	ret = 0;

out:
	metacommit_data_clear(&resolved);
	string_list_clear(&to_update, 0);
	strbuf_release(&refname);
	return ret;
}

int record_metacommit(struct repository *r,
		      const struct metacommit_data *metacommit,
		      const char *change, unsigned flags, const char *reason,
		      struct string_list *changes, struct strbuf *err)
{
	struct change_table table;
	int ret;

	change_table_init(&table);
	change_table_add_all_visible(&table, r);
	ret = record_in_table(r, &table, metacommit, change, flags, reason,
			      changes, err);
	change_table_clear(&table);
	return ret;
}

int modify_change(struct repository *r, const struct object_id *old_commit,
		  const struct object_id *new_commit, const char *reason,
		  struct strbuf *err)
{
	struct metacommit_data metacommit = METACOMMIT_DATA_INIT;
	int ret;

	oidcpy(&metacommit.content, new_commit);
	oid_array_append(&metacommit.replace, old_commit);
	ret = record_metacommit(r, &metacommit, NULL, 0, reason, NULL, err);
	metacommit_data_clear(&metacommit);
	return ret;
}

int delete_changes(struct repository *r, const struct string_list *refnames,
		   const char *reason, struct strbuf *err)
{
	struct ref_transaction *transaction;
	const struct string_list_item *item;
	int ret = -1;

	transaction = ref_store_transaction_begin(get_main_ref_store(r), 0, err);
	if (!transaction)
		return -1;
	for_each_string_list_item(item, refnames)
		if (ref_transaction_delete(transaction, item->string, item->util,
					   NULL, REF_NO_DEREF, reason, err))
			goto out;
	if (ref_transaction_commit(transaction, err))
		goto out;
	ret = 0;

out:
	ref_transaction_free(transaction);
	return ret;
}
