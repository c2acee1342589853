/*
 * The metacommit format: parsing and writing metacommits (shared with
 * fsck), the names of the change namespaces, and the walk of a change's
 * history. Nothing here moves a ref: recording is the change writer's
 * job (change-writer.c), one layer up, above the change table.
 */
#include "git-compat-util.h"
#include "metacommit.h"
#include "commit-graph.h"
#include "commit.h"
#include "date.h"
#include "gettext.h"
#include "hex.h"
#include "ident.h"
#include "odb.h"
#include "oidset.h"
#include "repository.h"
#include "strbuf.h"
#include "tree.h"

void metacommit_data_clear(struct metacommit_data *data)
{
	memset(&data->content, 0, sizeof(data->content));
	oid_array_clear(&data->replace);
	oid_array_clear(&data->origin);
	data->abandoned = 0;
}

/*
 * The parents `buffer`, the text of a commit, names. Not the parents of the
 * parsed commit: a revision walk may have rewritten those (log --decorate
 * parses metacommits while it walks them), and grafts or a shallow
 * boundary hide some, but what a metacommit records is in its text.
 */
static void read_parents(const char *buffer, const struct git_hash_algo *algo,
			 struct oid_array *parents)
{
	const char *p = strchrnul(buffer, '\n');

	while (*p && skip_prefix(p + 1, "parent ", &p)) {
		struct object_id oid;

		if (parse_oid_hex_algop(p, &oid, &p, algo) || *p != '\n')
			return;
		oid_array_append(parents, &oid);
	}
}

/*
 * Parse the value of the parent-type header, `types` of length `len`, of
 * `commit`, whose parents are `parents`, into `data`. Every parent must
 * have exactly one single-letter type, the first parent being the content
 * or abandoned one.
 */
static int parse_parent_types(struct commit *commit,
			      const struct oid_array *parents,
			      const char *types, size_t len,
			      struct metacommit_data *data, struct strbuf *err)
{
	const char *p = types, *end = types + len;
	int ret = METACOMMIT_TYPE_NONE;
	size_t parent = 0;

	while (p < end) {
		char type = *p++;

		if (p < end && (*p++ != ' ' || p == end))
			goto malformed;
		if (parent == parents->nr) {
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
			oidcpy(&data->content, &parents->oid[parent]);
			data->abandoned = ret == METACOMMIT_TYPE_ABANDONED;
		} else if (type == 'r') {
			oid_array_append(&data->replace, &parents->oid[parent]);
		} else if (type == 'o') {
			oid_array_append(&data->origin, &parents->oid[parent]);
		} else {
			goto malformed;
		}
		parent++;
	}

	if (ret == METACOMMIT_TYPE_NONE)
		goto malformed;
	if (parent < parents->nr) {
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

/*
 * Whether the text `buffer` of a commit names the empty tree, as that of
 * a metacommit does: a commit with another tree is no metacommit,
 * whatever its headers say.
 */
static int names_empty_tree(const char *buffer,
			    const struct git_hash_algo *algo)
{
	struct object_id tree;
	const char *p;

	return skip_prefix(buffer, "tree ", &p) &&
	       !parse_oid_hex_algop(p, &tree, &p, algo) &&
	       oideq(&tree, algo->empty_tree);
}

/* parse_metacommit() of the text `buffer` of `commit`. */
static int parse_metacommit_buffer(struct repository *r, struct commit *commit,
				   const char *buffer,
				   struct metacommit_data *data,
				   struct strbuf *err)
{
	struct metacommit_data scratch = METACOMMIT_DATA_INIT;
	struct oid_array parents = OID_ARRAY_INIT;
	const char *types;
	size_t len;
	int ret;

	if (!data)
		data = &scratch;
	/* This only looks at the header, never at the message. */
	types = find_commit_header(buffer, METACOMMIT_HEADER, &len);
	if (!types || !names_empty_tree(buffer, r->hash_algo)) {
		ret = METACOMMIT_TYPE_NONE;
	} else {
		read_parents(buffer, r->hash_algo, &parents);
		ret = parse_parent_types(commit, &parents, types, len, data,
					 err);
	}
	oid_array_clear(&parents);

	if (ret < 0 || data == &scratch)
		metacommit_data_clear(data);
	return ret;
}

/* Whether the parsed `commit` has the empty tree, as a metacommit has. */
static int has_empty_tree(struct repository *r, struct commit *commit)
{
	struct tree *tree = repo_get_commit_tree(r, commit);

	return tree && oideq(&tree->object.oid, r->hash_algo->empty_tree);
}

int parse_metacommit(struct repository *r, struct commit *commit,
		     struct metacommit_data *data, struct strbuf *err)
{
	const char *buffer;
	int ret;

	if (repo_parse_commit(r, commit)) {
		strbuf_addf(err, _("could not parse commit %s"),
			    oid_to_hex(&commit->object.oid));
		return -1;
	}
	/*
	 * A commit with a tree other than the empty one is no metacommit,
	 * which the commit graph tells without reading its text: most
	 * changes hold a plain commit, and loading them all asks this of
	 * every one.
	 */
	if (!has_empty_tree(r, commit))
		return METACOMMIT_TYPE_NONE;
	buffer = repo_get_commit_buffer(r, commit, NULL);
	ret = parse_metacommit_buffer(r, commit, buffer, data, err);
	repo_unuse_commit_buffer(r, commit, buffer);
	return ret;
}

/*
 * parse_metacommit() without parsing `commit` if it is not parsed yet:
 * parsing a commit looks its parents up as commits, and the content of a
 * crafted metacommit may be a tag, which could then not be looked up as
 * the tag it is (a tag ref to it would find no tag to decorate).
 */
static int parse_metacommit_unparsed(struct repository *r,
				     struct commit *commit,
				     struct metacommit_data *data,
				     struct strbuf *err)
{
	enum object_type type;
	unsigned long size;
	char *buffer;
	int ret;

	if (commit->object.parsed)
		return parse_metacommit(r, commit, data, err);
	buffer = odb_read_object(r->objects, &commit->object.oid, &type, &size);
	if (!buffer || type != OBJ_COMMIT) {
		strbuf_addf(err, _("could not parse commit %s"),
			    oid_to_hex(&commit->object.oid));
		free(buffer);
		return -1;
	}
	ret = parse_metacommit_buffer(r, commit, buffer, data, err);
	free(buffer);
	return ret;
}

int is_metacommit(struct repository *r, struct commit *commit)
{
	struct strbuf err = STRBUF_INIT;
	int type = parse_metacommit(r, commit, NULL, &err);

	strbuf_release(&err);
	return type != METACOMMIT_TYPE_NONE;
}

int is_change_refname(const char *refname)
{
	return starts_with(refname, CHANGES_REF_PREFIX) ||
	       starts_with(refname, HIDDEN_CHANGES_REF_PREFIX) ||
	       remote_change_name(refname);
}

const char *remote_change_name(const char *refname)
{
	const char *rest, *slash;

	if (!skip_prefix(refname, "refs/remotes/", &rest))
		return NULL;
	slash = strchr(rest, '/');
	if (!slash || slash == rest || !skip_prefix(slash, "/metas/", &rest) ||
	    !*rest)
		return NULL;
	return rest;
}

void change_history_add(struct repository *r, const struct object_id *head,
			struct oidset *versions)
{
	struct oid_array queue = OID_ARRAY_INIT;
	struct strbuf err = STRBUF_INIT;

	oid_array_append(&queue, head);
	while (queue.nr) {
		struct metacommit_data data = METACOMMIT_DATA_INIT;
		struct object_id oid = queue.oid[--queue.nr];
		struct commit *commit = lookup_commit(r, &oid);

		if (commit && parse_metacommit(r, commit, &data, &err) > 0) {
			if (!oideq(&oid, head))
				oidset_insert(versions, &data.content);
			for (size_t i = 0; i < data.replace.nr; i++)
				if (!oidset_insert(versions, &data.replace.oid[i]))
					oid_array_append(&queue,
							 &data.replace.oid[i]);
		}
		metacommit_data_clear(&data);
		strbuf_reset(&err);
	}
	oid_array_clear(&queue);
	strbuf_release(&err);
}

int change_history_obsolete(struct repository *r, const struct object_id *head,
			    change_obsolete_fn fn, void *cb_data)
{
	/* Metacommits to look at, and how far each is from the head. */
	struct oid_array queue = OID_ARRAY_INIT;
	unsigned *depth = NULL;
	size_t depth_alloc = 0;
	struct oidset seen = OIDSET_INIT;
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	oid_array_append(&queue, head);
	ALLOC_GROW(depth, queue.nr, depth_alloc);
	depth[0] = 0;
	while (queue.nr) {
		struct metacommit_data data = METACOMMIT_DATA_INIT;
		struct object_id oid = queue.oid[--queue.nr];
		unsigned behind = depth[queue.nr] + 1;
		struct commit *meta = lookup_commit(r, &oid);
		int type;

		if (!meta)
			ret = -1;
		if (!meta || oidset_insert(&seen, &oid))
			goto next;
		type = parse_metacommit(r, meta, &data, &err);
		if (type < 0)
			ret = -1;
		if (type <= 0)
			goto next;
		for (size_t i = 0; i < data.replace.nr; i++) {
			struct metacommit_data old = METACOMMIT_DATA_INIT;
			const struct object_id *replaced = &data.replace.oid[i];
			struct commit *commit = lookup_commit(r, replaced);

			type = commit ? parse_metacommit(r, commit, &old, &err) : -1;
			if (type < 0)
				ret = -1;
			if (type > 0) {
				fn(&old.content, behind, cb_data);
				oid_array_append(&queue, replaced);
				ALLOC_GROW(depth, queue.nr, depth_alloc);
				depth[queue.nr - 1] = behind;
			} else {
				fn(replaced, behind, cb_data);
			}
			metacommit_data_clear(&old);
		}
	next:
		metacommit_data_clear(&data);
		strbuf_reset(&err);
	}
	free(depth);
	oid_array_clear(&queue);
	oidset_clear(&seen);
	strbuf_release(&err);
	return ret;
}

/*
 * The version `version` replaced first, into `version`: 1 if it has one,
 * 0 if it is a plain commit (a first version), -1 if it cannot be read.
 * Its commit date is stored in `*date`.
 */
static int replaced_version(struct repository *r, struct object_id *version,
			    timestamp_t *date)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct commit *commit = lookup_commit(r, version);
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	if (!commit || repo_parse_commit(r, commit))
		goto out;
	*date = commit->date;
	ret = parse_metacommit(r, commit, &data, &err);
	if (ret > 0 && data.replace.nr)
		oidcpy(version, &data.replace.oid[0]);
	else if (ret > 0)
		ret = 0;
out:
	metacommit_data_clear(&data);
	strbuf_release(&err);
	return ret < 0 ? -1 : ret;
}

int change_earlier_version(struct repository *r, const struct object_id *head,
			   int nth, timestamp_t at_time,
			   struct object_id *version, int *versions)
{
	struct oidset seen = OIDSET_INIT;
	int ret = 1;

	oidcpy(version, head);
	*versions = 0;
	for (;;) {
		struct object_id current = *version;
		timestamp_t date;
		int found;

		if (oidset_insert(&seen, &current)) {
			ret = -1;
			break;
		}
		found = replaced_version(r, version, &date);
		if (found < 0) {
			ret = -1;
			break;
		}
		if (nth >= 0 ? *versions == nth : date <= at_time) {
			oidcpy(version, &current);
			ret = 0;
			break;
		}
		if (!found) {
			oidcpy(version, &current);
			break;
		}
		++*versions;
	}
	oidset_clear(&seen);
	return ret;
}

/*
 * Whether the commit graph shows that `commit` is no metacommit, which has
 * the empty tree: the graph knows the tree of a commit without reading it.
 * Most changes hold a plain commit; decorating a log with thousands of
 * them would otherwise read each.
 */
static int known_not_metacommit(struct repository *r, struct commit *commit)
{
	return parse_commit_in_graph(r, commit) &&
	       !oideq(get_commit_tree_oid(commit), r->hash_algo->empty_tree);
}

int peel_change_head(struct repository *r, const char *refname,
		     struct object_id *oid)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct strbuf err = STRBUF_INIT;
	struct commit *commit;
	int peeled = 0;

	if (!is_change_refname(refname))
		return 0;
	/*
	 * The commit graph knows a commit, and whether it can be a
	 * metacommit, without reading its object: "log --decorate" asks
	 * this of every change.
	 */
	commit = lookup_commit_in_graph(r, oid);
	if (commit && known_not_metacommit(r, commit))
		return 0;
	/* A graph may be stale: make sure the object is there. */
	if (odb_read_object_info(r->objects, oid, NULL) != OBJ_COMMIT)
		return 0;
	commit = lookup_commit(r, oid);
	if (commit && !known_not_metacommit(r, commit) &&
	    parse_metacommit_unparsed(r, commit, &data, &err) > 0) {
		oidcpy(oid, &data.content);
		peeled = 1;
	}
	metacommit_data_clear(&data);
	strbuf_release(&err);
	return peeled;
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

/*
 * The identity a metacommit is written with, as both its author and its
 * committer: it is bookkeeping done on behalf of the committer. It must
 * never stop the command that records it, which has already made its
 * commits: unlike commit_tree_extended()'s default, it does not die on an
 * unusable identity or date from the environment (such as an author date
 * meant for the commits only), but falls back to the defaults.
 */
static char *metacommit_ident(void)
{
	const char *date = getenv("GIT_COMMITTER_DATE");
	struct strbuf parsed = STRBUF_INIT;

	if (date && parse_date(date, &parsed) < 0)
		date = NULL;
	strbuf_release(&parsed);
	return xstrdup(fmt_ident(getenv("GIT_COMMITTER_NAME"),
				 getenv("GIT_COMMITTER_EMAIL"),
				 WANT_COMMITTER_IDENT, date, 0));
}

static struct object_database *empty_tree_written;

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
	char *ident = NULL;
	int ret = -1;

	/*
	 * The empty tree is known to every repository without being stored,
	 * but fsck and other repositories we push to need the real object.
	 * Write it once per process: a command may write many metacommits.
	 */
	if (empty_tree_written != r->objects) {
		if (odb_write_object(r->objects, "", 0, OBJ_TREE, &tree)) {
			strbuf_addstr(err, _("unable to write the empty tree"));
			goto out;
		}
		empty_tree_written = r->objects;
	}
	oidcpy(&tree, r->hash_algo->empty_tree);

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
	ident = metacommit_ident();
	if (commit_tree_extended(msg.buf, msg.len, &tree, parents, result,
				 ident, ident, NULL, &header)) {
		strbuf_addstr(err, _("unable to write metacommit"));
		goto out;
	}
	ret = 0;

out:
	free(ident);
	commit_list_free(parents);
	strbuf_release(&types);
	strbuf_release(&msg);
	return ret;
}

void strbuf_add_local_change_refname(struct strbuf *refname, const char *name)
{
	strbuf_addf(refname, "%s%s", CHANGES_REF_PREFIX, name);
}

void strbuf_add_change_refname(struct strbuf *refname, const char *name)
{
	if (!starts_with(name, CHANGES_REF_PREFIX))
		strbuf_addstr(refname, starts_with(name, "metas/") ?
			      "refs/" : CHANGES_REF_PREFIX);
	strbuf_addstr(refname, name);
}
