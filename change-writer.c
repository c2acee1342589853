/*
 * The one writer of changes: recording what commands do to commits
 * (record_rewrites() and its siblings, which all go through a "rewrite
 * batch" that moves the changes in one ref transaction, the caller's own
 * with prepare_rewrites()), the names of new changes, the content and id
 * indexes that find a change by its commit, the saved values that
 * --abort restores, and the "git change" operations that move changes
 * (copy, abandon, rename, restore, expiry of hidden changes).
 */
#include "git-compat-util.h"
#include "change-writer.h"
#include "abspath.h"
#include "change-id.h"
#include "change-name.h"
#include "change-table.h"
#include "commit.h"
#include "config.h"
#include "dir.h"
#include "gettext.h"
#include "hex.h"
#include "odb.h"
#include "oidset.h"
#include "parse.h"
#include "path.h"
#include "refs.h"
#include "repository.h"
#include "strbuf.h"
#include "string-list.h"
#include "strmap.h"

/*
 * Whether `refname` exists or, if `check_conflicts`, cannot be created
 * because of another ref ("refs/metas/a" for "refs/metas/a/b", or the other
 * way round). Looking for those reads every loose ref of refs/metas/ with
 * the files backend: see create_change() for when to skip it.
 */
static int change_name_taken(struct ref_store *refs, const char *refname,
			     int check_conflicts)
{
	struct strbuf err = STRBUF_INIT;
	int taken;

	if (refs_ref_exists(refs, refname))
		return 1;
	if (!check_conflicts)
		return 0;
	taken = !!refs_verify_refname_available(refs, refname, NULL, NULL, 0,
						&err);
	strbuf_release(&err);
	return taken;
}

static int change_refname_in_use(struct ref_store *refs,
				 struct string_list *reserved,
				 const char *refname, int check_conflicts)
{
	return (reserved && unsorted_string_list_has_string(reserved, refname)) ||
		change_name_taken(refs, refname, check_conflicts);
}

/*
 * Whether a change, or a name reserved for one, is in the way of
 * `refname` from above: "refs/metas/a/b" for "refs/metas/a/b/c".
 */
static int change_below_taken(struct ref_store *refs,
			      struct string_list *reserved,
			      const char *refname)
{
	struct strbuf prefix = STRBUF_INIT;
	const char *slash = refname + strlen(CHANGES_REF_PREFIX);
	int taken = 0;

	while (!taken && (slash = strchr(slash, '/'))) {
		strbuf_reset(&prefix);
		strbuf_add(&prefix, refname, slash - refname);
		taken = change_refname_in_use(refs, reserved, prefix.buf, 0);
		slash++;
	}
	strbuf_release(&prefix);
	return taken;
}

static void set_name_suffix(struct strbuf *refname, size_t base_len,
			    unsigned long suffix)
{
	strbuf_setlen(refname, base_len);
	strbuf_addf(refname, "-%lu", suffix);
}

/*
 * Compute the refname of a new change for `content`. The design leaves the
 * naming scheme open; a numeric suffix keeps the name unique.
 *
 * Suffixes are handed out in order ("wip", "wip-2", "wip-3", ...), so a
 * repeated subject would cost one ref lookup per earlier use if they were
 * tried in turn. Instead, gallop to a free suffix and bisect back to one
 * that follows a used one: O(log n) lookups, and still the next number
 * when none was deleted.
 */
static void new_change_refname(struct repository *r, struct commit *content,
			       struct string_list *reserved, int check_conflicts,
			       struct strbuf *refname)
{
	struct ref_store *refs = get_main_ref_store(r);
	unsigned long used = 1, free_suffix = 2;
	size_t base_len;

	strbuf_addstr(refname, CHANGES_REF_PREFIX);
	change_name_for_commit(r, content, refname);
	if (!change_refname_in_use(refs, reserved, refname->buf,
				   check_conflicts))
		return;
	if (check_conflicts && change_below_taken(refs, reserved, refname->buf)) {
		/*
		 * Only a change-name hook gives names with a slash. No
		 * suffix helps: "a/b/c-2" is below a change "a/b" too.
		 */
		const char *buffer = repo_get_commit_buffer(r, content, NULL);
		const char *subject;
		size_t len = find_commit_subject(buffer, &subject);

		warning(_("the change name '%s' from the change-name hook "
			  "is below an existing change; naming the change "
			  "after its subject instead"),
			refname->buf + strlen(CHANGES_REF_PREFIX));
		strbuf_setlen(refname, strlen(CHANGES_REF_PREFIX));
		change_name_from_subject(subject, len, refname);
		repo_unuse_commit_buffer(r, content, buffer);
		if (!change_refname_in_use(refs, reserved, refname->buf,
					   check_conflicts))
			return;
	}
	base_len = refname->len;

	/* The bare name counts as suffix 1: find a free suffix above it. */
	for (;;) {
		set_name_suffix(refname, base_len, free_suffix);
		if (!change_refname_in_use(refs, reserved, refname->buf,
					   check_conflicts))
			break;
		used = free_suffix;
		if (free_suffix > ULONG_MAX / 2)
			die(_("no free name for a change named after '%s'"),
			    refname->buf);
		free_suffix *= 2;
	}

	/* Invariant: "used" is taken, "free_suffix" is not. */
	while (free_suffix - used > 1) {
		unsigned long mid = used + (free_suffix - used) / 2;

		set_name_suffix(refname, base_len, mid);
		if (change_refname_in_use(refs, reserved, refname->buf,
					  check_conflicts))
			used = mid;
		else
			free_suffix = mid;
	}
	set_name_suffix(refname, base_len, free_suffix);
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

/*
 * Changes are moved during a rebase only by explicit "git change" commands
 * (the rebase itself records its rewrites when it finishes), while "git am"
 * and a sequence of cherry-picks or reverts record each commit they make.
 * The first time a change is moved while one of them is in progress, its
 * previous value is saved in the state directory of the command, for
 * restore_saved_changes() when it is aborted.
 */

/*
 * The state directory of the rebase, am, cherry-pick or revert in progress,
 * or NULL if there is none. A cherry-pick of a single commit has none: it
 * records nothing before it is concluded.
 */
static char *abortable_state_dir(struct repository *r)
{
	static const char *state_dirs[] = {
		"rebase-merge", "rebase-apply", "sequencer",
	};

	for (size_t i = 0; i < ARRAY_SIZE(state_dirs); i++) {
		char *dir = repo_git_path(r, "%s", state_dirs[i]);

		if (is_directory(dir))
			return dir;
		free(dir);
	}
	return NULL;
}

int change_command_in_progress(struct repository *r)
{
	char *dir = abortable_state_dir(r);

	free(dir);
	return !!dir;
}

/*
 * The file of the rebase (or am, cherry-pick, revert) in progress where
 * the changes it moves are saved as they were, for its --abort, open for
 * appending; NULL if none is in progress. Found once per transaction: the
 * state directories are looked for on each call.
 */
static FILE *open_saved_changes(struct repository *r)
{
	char *dir = abortable_state_dir(r);
	char *path;
	FILE *fp;

	if (!dir)
		return NULL;
	path = xstrfmt("%s/%s", dir, CHANGES_SAVED_FILE);
	fp = fopen_or_warn(path, "a");
	free(path);
	free(dir);
	return fp;
}

static void save_change(FILE *saved, const struct git_hash_algo *algo,
			const char *refname, const struct object_id *old)
{
	/* A later entry for the same change is ignored when read. */
	if (saved)
		fprintf(saved, "%s %s\n", oid_to_hex(old ? old : null_oid(algo)),
			refname);
}

/*
 * What it saves must be on disk before the changes move: close it before
 * committing the transaction. Sets `*saved` to NULL.
 */
static void close_saved_changes(FILE **saved)
{
	if (*saved && fclose(*saved))
		warning_errno(_("could not save the changes for --abort"));
	*saved = NULL;
}

/*
 * Whether a refname read back from a state file (the saved changes, the
 * content index) may be written: only local changes may. The files can be
 * damaged or crafted, and must not move a branch or a tag.
 */
static int is_local_change_refname(const char *refname)
{
	return (starts_with(refname, CHANGES_REF_PREFIX) ||
		starts_with(refname, HIDDEN_CHANGES_REF_PREFIX)) &&
	       !check_refname_format(refname, 0);
}

/* How a change moves, for the writer below. */
struct change_move {
	const char *refname;
	/* The value it must have: NULL for any, the null oid for none. */
	const struct object_id *old;
	/* Its new value; the null oid deletes it. */
	const struct object_id *new;
	/* The reflog message, or NULL for the reason of the whole. */
	const char *msg;
};

/* Do not save the old values: the moves restore saved ones. */
#define CHANGE_MOVES_RESTORING    (1 << 0)
/* The new values are objects just written: skip checking them. */
#define CHANGE_MOVES_NEW_OBJECTS  (1 << 1)

/*
 * The flags of the update of `refname`, moved with the CHANGE_MOVES_*
 * `flags`. A change keeps its versions in its metacommits ("metas/foo@{1}"
 * walks them), so it is logged only as core.logAllRefUpdates asks: a
 * reflog file per change would cost more disk than the objects of the
 * changes. A hidden change is logged, as the newest entry of its reflog
 * says when it was hidden, which is when gc may expire it
 * (expire_hidden_changes()).
 */
static unsigned update_flags(const char *refname, unsigned flags)
{
	unsigned ref_flags = 0;

	if (flags & CHANGE_MOVES_NEW_OBJECTS)
		ref_flags |= REF_SKIP_OID_VERIFICATION;
	if (starts_with(refname, HIDDEN_CHANGES_REF_PREFIX))
		ref_flags |= REF_FORCE_CREATE_REFLOG;
	return ref_flags;
}

/*
 * The one writer of changes: every change this library moves goes
 * through here. Queue `moves` into `transaction` (which the caller
 * commits), each with the value it must have, after saving those values
 * for the --abort of a command in progress. A name outside refs/metas/
 * and refs/hiddenmetas/ is refused, whatever file or command it came
 * from. Returns 0, or -1 with a message in `err`.
 */
static int queue_change_moves(struct repository *r,
			      struct ref_transaction *transaction,
			      const struct change_move *moves, size_t nr,
			      unsigned flags, const char *reason,
			      struct strbuf *err)
{
	FILE *saved = NULL;
	int ret = -1;

	for (size_t i = 0; i < nr; i++)
		if (!is_local_change_refname(moves[i].refname)) {
			strbuf_addf(err, _("refusing to move '%s': not a change"),
				    moves[i].refname);
			return -1;
		}
	if (!(flags & CHANGE_MOVES_RESTORING))
		saved = open_saved_changes(r);
	for (size_t i = 0; i < nr; i++) {
		const struct change_move *move = &moves[i];
		const char *msg = move->msg ? move->msg : reason;

		if (move->old)
			save_change(saved, r->hash_algo, move->refname,
				    is_null_oid(move->old) ? NULL : move->old);
		if (is_null_oid(move->new) ?
		    ref_transaction_delete(transaction, move->refname,
					   move->old, NULL, REF_NO_DEREF,
					   msg, err) :
		    ref_transaction_update(transaction, move->refname,
					   move->new, move->old, NULL, NULL,
					   update_flags(move->refname, flags),
					   msg, err))
			goto out;
	}
	ret = 0;
out:
	/* What it saves must be on disk before the changes move. */
	close_saved_changes(&saved);
	return ret;
}

/*
 * queue_change_moves() in a transaction of its own, committed. Returns 0,
 * or what ref_transaction_commit() returns (or -1) with a message in
 * `err`.
 */
static int commit_change_moves(struct repository *r,
			       const struct change_move *moves, size_t nr,
			       unsigned flags, const char *reason,
			       struct strbuf *err)
{
	struct ref_transaction *transaction;
	int ret = -1;

	transaction = ref_store_transaction_begin(get_main_ref_store(r), 0, err);
	if (transaction &&
	    !queue_change_moves(r, transaction, moves, nr, flags, reason, err))
		ret = ref_transaction_commit(transaction, err);
	ref_transaction_free(transaction);
	return ret;
}

int restore_changes_before_rebase(struct repository *r, const char *state_dir,
				  struct strbuf *err)
{
	return restore_saved_changes(r, state_dir, "rebase (abort)", err);
}

int restore_saved_changes(struct repository *r, const char *state_dir,
			  const char *reason, struct strbuf *err)
{
	struct ref_store *refs = get_main_ref_store(r);
	char *path = xstrfmt("%s/%s", state_dir, CHANGES_SAVED_FILE);
	struct string_list seen = STRING_LIST_INIT_DUP;
	struct change_move *moves = NULL;
	struct object_id *values = NULL;
	size_t nr = 0, alloc = 0, values_alloc = 0;
	struct strbuf buf = STRBUF_INIT;
	const char *p;
	int ret = -1;

	if (strbuf_read_file(&buf, path, 0) < 0) {
		ret = 0; /* no change was moved */
		goto out;
	}
	/* A line per change at most: the values do not move as they grow. */
	for (p = buf.buf; *p; p++)
		if (*p == '\n')
			values_alloc++;
	ALLOC_ARRAY(values, values_alloc);
	for (p = buf.buf; *p; ) {
		struct object_id old;
		const char *refname;
		char *eol;

		if (parse_oid_hex_algop(p, &old, &refname, r->hash_algo) || *refname++ != ' ' ||
		    !(eol = strchr(refname, '\n'))) {
			strbuf_addf(err, _("could not parse '%s'"), path);
			goto out;
		}
		*eol = '\0';
		p = eol + 1;
		if (!is_local_change_refname(refname)) {
			warning(_("ignoring '%s' in '%s': not a change"),
				refname, path);
			continue;
		}
		if (unsorted_string_list_has_string(&seen, refname))
			continue;
		string_list_append(&seen, refname);

		/* A change created during the rebase goes away. */
		if (is_null_oid(&old) && !refs_ref_exists(refs, refname))
			continue;
		oidcpy(&values[nr], &old);
		ALLOC_GROW(moves, nr + 1, alloc);
		moves[nr].refname = refname;
		moves[nr].old = NULL;
		moves[nr].new = &values[nr];
		moves[nr].msg = NULL;
		nr++;
	}
	ret = commit_change_moves(r, moves, nr, CHANGE_MOVES_RESTORING,
				  reason, err) ? -1 : 0;

out:
	free(moves);
	free(values);
	string_list_clear(&seen, 0);
	strbuf_release(&buf);
	free(path);
	return ret;
}

/*
 * The content index maps a commit to the changes whose head has it as its
 * content, so that recording a rewrite of a commit does not have to read
 * every change. Entries are only ever appended, when this library moves a
 * change, and are checked against the refs when read: since what a
 * metacommit names as its content never changes, an entry can go stale
 * (the change moved on) but never be wrong unnoticed. Stale entries are
 * useful too: they say which commits were ever the commit of a change
 * (content_index_listed()). A fetch adds the remote changes it moved,
 * with the versions their histories replaced (index_fetched_changes()),
 * which are only ever read. Changes moved by other means (update-ref)
 * are missing from the index.
 *
 * It lives in $GIT_COMMON_DIR/metas-index/<xx>: one bucket
 * per first byte of the content's object name, each a list of
 * "<content> <refname>" lines appended as changes move. Buckets stay small
 * (changes are few next to commits), and once the 256 buckets exist,
 * recording appends to a file rather than creating one, which is most of
 * the cost of a file system operation.
 */
static char *content_index_bucket_path(struct repository *r,
				       unsigned char byte)
{
	return repo_common_path(r, "metas-index/%02x", byte);
}

static char *content_index_path(struct repository *r,
				const struct object_id *content)
{
	return content_index_bucket_path(r, content->hash[0]);
}

void append_change_file(struct repository *r, const char *path,
			const struct strbuf *line)
{
	int fd;

	/* The directory is made once: do not look for it every time. */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0666);
	if (fd < 0 && errno == ENOENT &&
	    /* It only cuts the string for a while. */
	    safe_create_leading_directories(r, (char *)path) == SCLD_OK)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0666);
	if (fd < 0 ||
	    write_in_full(fd, line->buf, line->len) < 0 ||
	    /* Others sharing the repository append to it too. */
	    adjust_shared_perm(r, path))
		warning_errno(_("could not update '%s'"), path);
	if (fd >= 0)
		close(fd);
}

/*
 * The id index maps a change id (the "change-id" header, see
 * change-id.h) to the changes whose commit carried it, so that a commit
 * made elsewhere with the id of one of the user's changes (by Jujutsu,
 * or fetched from another clone) is found as a version of that change
 * without reading every change. It is kept as the content index is,
 * beside it, in $GIT_COMMON_DIR/metas-ids/<xx>: one bucket per first
 * two digits of the id, each a list of "<id> <refname>" lines. Entries
 * go stale (the change moved to a commit with another id, or was
 * deleted) and are checked when read (changes_with_id()).
 */
#define ID_INDEX_DIR "metas-ids"

static char *id_index_path(struct repository *r, const char *id)
{
	return repo_common_path(r, ID_INDEX_DIR "/%.2s", id);
}

int change_ids_indexed(struct repository *r)
{
	char *path = repo_common_path(r, ID_INDEX_DIR);
	int indexed = is_directory(path);

	free(path);
	return indexed;
}

static void index_change_id(struct repository *r,
			    const struct object_id *content,
			    const char *refname)
{
	struct commit *commit = lookup_commit_reference_gently(r, content, 1);
	struct strbuf id = STRBUF_INIT;
	struct strbuf line = STRBUF_INIT;
	char *path;

	if (!commit || !commit_change_id(r, commit, &id))
		goto out;
	strbuf_addf(&line, "%s %s\n", id.buf, refname);
	path = id_index_path(r, id.buf);
	append_change_file(r, path, &line);
	free(path);
out:
	strbuf_release(&id);
	strbuf_release(&line);
}

/* The change `refname` now has `content` as its commit: index it. */
static void index_change(struct repository *r, const struct object_id *content,
			 const char *refname)
{
	char *path = content_index_path(r, content);
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "%s %s\n", oid_to_hex(content), refname);
	append_change_file(r, path, &line);
	index_change_id(r, content, refname);
	strbuf_release(&line);
	free(path);
}

/*
 * The text of the bucket `byte` of an index, kept in `path`: read once
 * if there is a cache.
 */
static const char *index_bucket(struct content_index_cache *cache,
				unsigned char byte, const char *path,
				struct strbuf *scratch)
{
	struct strbuf *buf = cache ? &cache->buckets[byte] : scratch;

	/* A bucket of the cache starts zeroed, without even strbuf_slopbuf. */
	if (cache && cache->loaded[byte])
		return buf->buf ? buf->buf : "";
	if (strbuf_read_file(buf, path, 0) < 0 && errno != ENOENT)
		warning_errno(_("could not read '%s'"), path);
	if (cache)
		cache->loaded[byte] = 1;
	return buf->buf ? buf->buf : "";
}

/* The text of the bucket of `content`, read once if there is a cache. */
static const char *content_index_bucket(struct repository *r,
					struct content_index_cache *cache,
					const struct object_id *content,
					struct strbuf *scratch)
{
	char *path = NULL;
	const char *text;

	if (!cache || !cache->loaded[content->hash[0]])
		path = content_index_path(r, content);
	text = index_bucket(cache, content->hash[0], path, scratch);
	free(path);
	return text;
}

/*
 * Whether a refname read back from the content index names a remote's
 * change: those are only read, to find what fetched versions replaced.
 */
static int is_remote_change_refname(const char *refname)
{
	return remote_change_name(refname) && !check_refname_format(refname, 0);
}

static void list_indexed(struct repository *r, struct content_index_cache *cache,
			 const struct object_id *content,
			 struct string_list *refnames,
			 int (*accept)(const char *refname))
{
	struct strbuf scratch = STRBUF_INIT;
	const char *line = content_index_bucket(r, cache, content, &scratch);
	const char *hex = oid_to_hex(content);
	size_t hexsz = r->hash_algo->hexsz;

	while (*line) {
		const char *eol = strchrnul(line, '\n');

		if ((size_t)(eol - line) > hexsz + 1 && line[hexsz] == ' ' &&
		    !strncmp(line, hex, hexsz)) {
			char *refname = xmemdupz(line + hexsz + 1,
						 eol - line - hexsz - 1);

			if (accept(refname) &&
			    !unsorted_string_list_has_string(refnames, refname))
				string_list_append_nodup(refnames, refname);
			else
				free(refname);
		}
		line = *eol ? eol + 1 : eol;
	}
	strbuf_release(&scratch);
}

void content_index_listed(struct repository *r, struct content_index_cache *cache,
			  const struct object_id *content,
			  struct string_list *refnames)
{
	list_indexed(r, cache, content, refnames, is_local_change_refname);
}

void content_index_listed_remote(struct repository *r,
				 struct content_index_cache *cache,
				 const struct object_id *content,
				 struct string_list *refnames)
{
	list_indexed(r, cache, content, refnames, is_remote_change_refname);
}

void content_index_cache_release(struct content_index_cache *cache)
{
	for (size_t i = 0; i < ARRAY_SIZE(cache->buckets); i++)
		strbuf_release(&cache->buckets[i]);
	memset(cache->loaded, 0, sizeof(cache->loaded));
}

/*
 * The commit of a change whose head is `head`: `head` itself, or the
 * content of a metacommit. Returns 0, or -1 for an abandoned or
 * malformed metacommit.
 */
static int live_content(struct repository *r, const struct object_id *head,
			struct object_id *content)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct strbuf err = STRBUF_INIT;
	struct commit *commit = lookup_commit_reference_gently(r, head, 1);
	int ret = -1;

	if (!commit)
		goto out;
	switch (parse_metacommit(r, commit, &data, &err)) {
	case METACOMMIT_TYPE_NONE:
		oidcpy(content, head);
		ret = 0;
		break;
	case METACOMMIT_TYPE_NORMAL:
		oidcpy(content, &data.content);
		ret = 0;
		break;
	default:
		break;
	}
out:
	metacommit_data_clear(&data);
	strbuf_release(&err);
	return ret;
}

/* The lines a fetch adds to the content index, by bucket. */
struct fetched_index_lines {
	struct strbuf buckets[256];
	/*
	 * What the version fetched before had made obsolete, and what
	 * the lines list already.
	 */
	struct oidset known;
	const char *refname;
};

static void note_known_obsolete(const struct object_id *obsolete,
				unsigned behind UNUSED, void *data)
{
	oidset_insert(data, obsolete);
}

static void add_fetched_line(struct fetched_index_lines *lines,
			     const struct object_id *content)
{
	strbuf_addf(&lines->buckets[content->hash[0]], "%s %s\n",
		    oid_to_hex(content), lines->refname);
}

static void add_fetched_obsolete(const struct object_id *obsolete,
				 unsigned behind UNUSED, void *data)
{
	struct fetched_index_lines *lines = data;

	/* Reached by several edges, it is listed once. */
	if (!oidset_insert(&lines->known, obsolete))
		add_fetched_line(lines, obsolete);
}

/*
 * The lines for the remote change `move->refname`: its commit, and each
 * commit its history made obsolete since `move->old` (all of them for a
 * change fetched for the first time). An abandoned change makes nothing
 * obsolete, as the change graph says.
 */
static void add_fetched_change(struct repository *r,
			       struct fetched_index_lines *lines,
			       const struct ref_move *move)
{
	struct object_id content;

	if (is_null_oid(&move->new) || live_content(r, &move->new, &content))
		return;
	lines->refname = move->refname;
	oidset_clear(&lines->known);
	if (!is_null_oid(&move->old))
		change_history_obsolete(r, &move->old, note_known_obsolete,
					&lines->known);
	add_fetched_line(lines, &content);
	change_history_obsolete(r, &move->new, add_fetched_obsolete, lines);
}

void index_fetched_changes(struct repository *r, const struct ref_move *moves,
			   size_t nr)
{
	struct fetched_index_lines lines = { .known = OIDSET_INIT };

	for (size_t i = 0; i < nr; i++)
		if (is_remote_change_refname(moves[i].refname))
			add_fetched_change(r, &lines, &moves[i]);
	for (size_t i = 0; i < ARRAY_SIZE(lines.buckets); i++) {
		char *path;

		if (!lines.buckets[i].len)
			continue;
		path = content_index_bucket_path(r, i);
		append_change_file(r, path, &lines.buckets[i]);
		free(path);
		strbuf_release(&lines.buckets[i]);
	}
	oidset_clear(&lines.known);
}

/* Whether the commit `oid` carries the change id `id`. */
static int has_change_id(struct repository *r, const struct object_id *oid,
			 const char *id)
{
	struct commit *commit = lookup_commit_reference_gently(r, oid, 1);
	struct strbuf its_id = STRBUF_INIT;
	int ret = commit && commit_change_id(r, commit, &its_id) &&
		  !strcmp(its_id.buf, id);

	strbuf_release(&its_id);
	return ret;
}

void changes_with_id(struct repository *r, struct content_index_cache *cache,
		     const char *id, struct string_list *out)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct strbuf scratch = STRBUF_INIT;
	/* A change amended n times is listed n times: check it once. */
	struct strset tried = STRSET_INIT;
	const char *line;
	char *path = NULL;

	if (!change_id_is_valid(id, strlen(id)))
		return;
	if (!cache || !cache->loaded[change_id_first_byte(id)])
		path = id_index_path(r, id);
	line = index_bucket(cache, change_id_first_byte(id), path, &scratch);
	while (*line) {
		const char *eol = strchrnul(line, '\n');
		const char *refname;
		struct object_id head, content = { 0 };
		char *name = NULL;

		/* Read back from a file: only local changes are looked up. */
		if (skip_prefix(line, id, &refname) &&
		    skip_prefix(refname, " ", &refname)) {
			name = xmemdupz(refname, eol - refname);
			if (!strset_add(&tried, name) ||
			    !is_local_change_refname(name) ||
			    check_refname_format(name, 0) ||
			    unsorted_string_list_has_string(out, name) ||
			    refs_read_ref_full(refs, name, 0, &head, NULL) ||
			    live_content(r, &head, &content) ||
			    !has_change_id(r, &content, id))
				FREE_AND_NULL(name);
		}
		if (name)
			string_list_append_nodup(out, name)->util =
				oiddup(&content);
		line = *eol ? eol + 1 : eol;
	}
	strset_clear(&tried);
	strbuf_release(&scratch);
	free(path);
}

/* Whether `head`, the head of a change, has `content` as its content. */
static int has_content(struct repository *r, const struct object_id *head,
		       const struct object_id *content)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct strbuf err = STRBUF_INIT;
	struct commit *commit;
	int ret;

	if (oideq(head, content))
		return 1;
	commit = lookup_commit_reference_gently(r, head, 1);
	ret = commit &&
	      parse_metacommit(r, commit, &data, &err) == METACOMMIT_TYPE_NORMAL &&
	      oideq(&data.content, content);
	metacommit_data_clear(&data);
	strbuf_release(&err);
	return ret;
}

/*
 * Append to `out` the changes that the index lists for `content` and whose
 * head still has it as content, each with a `util` pointing to a newly
 * allocated copy of its head, unless `out` already has them.
 */
static void lookup_changes(struct repository *r, const struct object_id *content,
			   struct string_list *out)
{
	struct ref_store *refs = get_main_ref_store(r);
	char *path = content_index_path(r, content);
	const char *hex = oid_to_hex(content);
	struct strbuf buf = STRBUF_INIT;
	struct string_list lines = STRING_LIST_INIT_NODUP;
	struct string_list_item *line;

	if (strbuf_read_file(&buf, path, 0) < 0) {
		if (errno != ENOENT)
			warning_errno(_("could not read '%s'"), path);
		goto out;
	}
	string_list_split_in_place(&lines, buf.buf, "\n", -1);
	for_each_string_list_item(line, &lines) {
		const char *refname;
		struct object_id head;

		if (!skip_prefix(line->string, hex, &refname) ||
		    !skip_prefix(refname, " ", &refname) ||
		    /* Listed by a fetch, to be read only. */
		    is_remote_change_refname(refname))
			continue;
		if (!is_local_change_refname(refname)) {
			warning(_("ignoring '%s' in '%s': not a change"),
				refname, path);
			continue;
		}
		if (unsorted_string_list_has_string(out, refname) ||
		    refs_read_ref_full(refs, refname, 0, &head, NULL) ||
		    !has_content(r, &head, content))
			continue;
		string_list_append(out, refname)->util = oiddup(&head);
	}

out:
	string_list_clear(&lines, 0);
	strbuf_release(&buf);
	free(path);
}

static int update_changes(struct repository *r, const struct string_list *to_update,
			  const struct object_id *target,
			  const struct object_id *content, const char *reason,
			  struct strbuf *err)
{
	struct change_move *moves;
	int ret;

	/* Create if there was no change, never overwrite a newer one. */
	CALLOC_ARRAY(moves, to_update->nr);
	for (size_t i = 0; i < to_update->nr; i++) {
		moves[i].refname = to_update->items[i].string;
		moves[i].old = to_update->items[i].util ?
			to_update->items[i].util : null_oid(r->hash_algo);
		moves[i].new = target;
	}
	ret = commit_change_moves(r, moves, to_update->nr, 0, reason, err);
	free(moves);
	if (!ret)
		for (size_t i = 0; i < to_update->nr; i++)
			index_change(r, content, to_update->items[i].string);
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
				    refname.buf + strlen("refs/"));
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
		new_change_refname(r, content, NULL, 1, &refname);
		string_list_append(&to_update, refname.buf)->util = NULL;
	}

	/* A change without history points at its content directly. */
	if (is_trivial_metacommit(&resolved))
		oidcpy(&target, &resolved.content);
	else if (write_metacommit(r, &resolved, reason, &target, err))
		goto out;

	if (update_changes(r, &to_update, &target, &resolved.content,
			   reason, err))
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

int repo_changes_enabled(struct repository *r)
{
	int enabled = git_env_bool("GIT_TEST_ENABLE_CHANGES", -1);

	if (enabled < 0 &&
	    repo_config_get_bool(r, "core.enablechanges", &enabled))
		enabled = 1;
	return enabled;
}

int change_id_header_enabled(struct repository *r)
{
	int enabled;

	if (!repo_changes_enabled(r))
		return 0;
	enabled = git_env_bool("GIT_TEST_CHANGE_ID_HEADER", -1);
	if (enabled < 0 &&
	    repo_config_get_bool(r, "core.changeidheader", &enabled))
		enabled = 1;
	return enabled;
}

void set_change_id_header(struct repository *r,
			  struct commit_extra_header **extra,
			  struct commit *continues)
{
	struct strbuf id = STRBUF_INIT;

	if (!change_id_header_enabled(r))
		return;
	if (!(continues && commit_change_id(r, continues, &id)) &&
	    change_id_new(&id) < 0)
		warning(_("could not get random bytes for a change id"));
	else
		change_id_put_header(extra, id.buf);
	strbuf_release(&id);
}

int changes_deferred_by_rebase(struct repository *r)
{
	int deferred = 0;
	char *dir = repo_git_path(r, "rebase-merge");

	if (is_directory(dir))
		deferred = 1;
	free(dir);
	if (deferred)
		return 1;

	/* "git am" shares the directory of the apply backend. */
	dir = repo_git_path(r, "rebase-apply");
	if (is_directory(dir)) {
		char *applying = xstrfmt("%s/applying", dir);

		deferred = !file_exists(applying);
		free(applying);
	}
	free(dir);
	return deferred;
}

/* The message of a metacommit or reflog entry about `commit`. */
static char *describe(struct repository *r, struct commit *commit,
		      const char *reason)
{
	const char *buffer = repo_get_commit_buffer(r, commit, NULL);
	const char *subject;
	size_t len = find_commit_subject(buffer, &subject);
	char *msg = xstrfmt("%s: %.*s", reason, (int)len, subject);

	repo_unuse_commit_buffer(r, commit, buffer);
	return msg;
}

/*
 * Whether a ref transaction that failed with `ret` found the name of a
 * new change taken, by a ref of that name or one in its way, which a
 * look that skipped refs in the way (see change_name_taken()) can miss.
 */
static int name_was_taken(int ret)
{
	return ret == REF_TRANSACTION_ERROR_NAME_CONFLICT ||
	       ret == REF_TRANSACTION_ERROR_CREATE_EXISTS;
}

int create_change(struct repository *r, const struct object_id *oid,
		  const char *reason, struct strbuf *err)
{
	struct string_list to_create = STRING_LIST_INIT_DUP;
	struct strbuf refname = STRBUF_INIT;
	size_t err_len = err->len;
	struct commit *commit;
	char *msg = NULL;
	int ret = -1;

	if (check_content(r, oid, &commit, err))
		goto out;
	msg = describe(r, commit, reason);
	/*
	 * Every commit creates a change: look only for a ref of the same name
	 * first. The transaction finds a ref in the way, or one that another
	 * process created meanwhile; then look thoroughly and try again.
	 */
	for (int thorough = 0; thorough < 2; thorough++) {
		strbuf_setlen(err, err_len);
		strbuf_reset(&refname);
		string_list_clear(&to_create, 0);
		new_change_refname(r, commit, NULL, thorough, &refname);
		string_list_append(&to_create, refname.buf)->util = NULL;
		ret = update_changes(r, &to_create, oid, oid, msg, err);
		if (!name_was_taken(ret))
			break;
	}

out:
	free(msg);
	strbuf_release(&refname);
	string_list_clear(&to_create, 0);
	return ret;
}

/* A change moved (or merely looked at) by a batch of rewrites. */
struct batch_change {
	/* Its value before the batch, or the null oid to create it. */
	struct object_id old;
	/* Its value after the batch, and the content of that. */
	struct object_id head;
	struct object_id content;
	/* The reflog message, or NULL if it is not moved. */
	char *msg;
};

struct rewrite_batch {
	struct repository *repo;
	enum rewrite_type type;
	const char *reason;
	/* refname -> struct batch_change, in the order they were found */
	struct string_list changes;
	/* Other refs to move in the same transaction. */
	const struct ref_move *moves;
	size_t moves_nr;
	/* The caller added every change that matters: skip the index. */
	unsigned all_changes_known:1;
	/* The metacommits written so far are held in memory. */
	unsigned holding_writes:1;
	/* The caller holds them, for a dry run to discard them. */
	unsigned held_by_caller:1;
	/* Name new changes looking for refs in their way too. */
	unsigned thorough:1;
	/* The changes fetched from remotes, read when first needed. */
	struct change_table *remote_changes;
};

/*
 * A rebase records many rewrites at once: hold their metacommits to write
 * them out together, a single pack rather than a file each. A single
 * rewrite (every "commit --amend") writes its metacommit directly: holding
 * it would only hash and copy it once more.
 */
static void batch_hold_writes(struct rewrite_batch *batch)
{
	if (batch->holding_writes || batch->held_by_caller)
		return;
	odb_hold_writes(batch->repo->objects);
	batch->holding_writes = 1;
}

static int batch_release_writes(struct rewrite_batch *batch)
{
	if (!batch->holding_writes)
		return 0;
	batch->holding_writes = 0;
	return odb_release_writes(batch->repo->objects);
}

/*
 * Add the change `refname` to the batch. The item returned is the batch's:
 * its string lives as long as the batch, so lists of the changes found
 * for one rewrite can point at it.
 */
static struct string_list_item *batch_add(struct rewrite_batch *batch,
					  const char *refname,
					  const struct object_id *old,
					  const struct object_id *content)
{
	struct batch_change *change = xcalloc(1, sizeof(*change));
	struct string_list_item *item;

	if (old) {
		oidcpy(&change->old, old);
		oidcpy(&change->head, old);
	}
	oidcpy(&change->content, content);
	item = string_list_append(&batch->changes, refname);
	item->util = change;
	return item;
}

/* Append a change of the batch to the changes `found` for one rewrite. */
static void found_add(struct string_list *found,
		      const struct string_list_item *change)
{
	string_list_append(found, change->string)->util = change->util;
}

/*
 * Append to `found` (util: the struct batch_change) the changes whose head
 * has `content` as its content, as the batch left them so far: a change
 * moved by an earlier rewrite of the batch counts with its new content.
 */
static void batch_find(struct rewrite_batch *batch,
		       const struct object_id *content,
		       struct string_list *found)
{
	struct string_list from_index = STRING_LIST_INIT_DUP;
	struct string_list_item *item;

	for_each_string_list_item(item, &batch->changes) {
		struct batch_change *change = item->util;

		if (oideq(&change->content, content))
			found_add(found, item);
	}

	if (batch->all_changes_known)
		return;
	lookup_changes(batch->repo, content, &from_index);
	for_each_string_list_item(item, &from_index) {
		/* What the batch did to it supersedes what the index says. */
		if (unsorted_string_list_has_string(&batch->changes, item->string))
			continue;
		found_add(found, batch_add(batch, item->string, item->util,
					   content));
	}
	string_list_clear(&from_index, 1);
}

static void oid_array_append_unique(struct oid_array *array,
				    const struct object_id *oid)
{
	if (!oid_array_readonly_contains(array, oid))
		oid_array_append(array, oid);
}

static int collect_refname(const char *refname, void *cb_data)
{
	string_list_insert(cb_data, refname);
	return 0;
}

/*
 * A commit that no local change holds may be the commit of a change
 * fetched from a remote: someone else's, or one's own from another
 * repository. Rewriting it continues that change: append to `parents`
 * the heads of the remote changes that hold `commit` and, unless `name`
 * has one already, set it to the name of the first of them ("x" for
 * refs/remotes/origin/metas/x), for the local change that continues it.
 * Returns whether any remote change holds `commit`.
 */
static int batch_find_remote(struct rewrite_batch *batch,
			     const struct object_id *commit,
			     struct oid_array *parents, struct strbuf *name)
{
	struct string_list holders = STRING_LIST_INIT_NODUP;
	struct string_list_item *item;
	int found = 0;

	if (!batch->remote_changes) {
		CALLOC_ARRAY(batch->remote_changes, 1);
		change_table_init(batch->remote_changes);
		change_table_add_kinds(batch->remote_changes, batch->repo,
				       CHANGE_KIND_REMOTE);
	}
	change_table_for_each_referencing(batch->remote_changes, commit,
					  collect_refname, &holders);
	for_each_string_list_item(item, &holders) {
		struct change_head *head =
			change_table_get(batch->remote_changes, item->string);

		if (!head || head->abandoned || !oideq(&head->content, commit))
			continue;
		if (!name->len)
			strbuf_addstr(name, remote_change_name(item->string));
		oid_array_append_unique(parents, &head->head);
		found = 1;
	}
	string_list_clear(&holders, 0);
	return found;
}

/* Whether `version` is one of `heads` or in the history of one. */
static int in_history_of(struct repository *r, const struct oid_array *heads,
			 const struct object_id *version)
{
	struct oidset history = OIDSET_INIT;
	int found = oid_array_readonly_contains(heads, version);

	for (size_t i = 0; !found && i < heads->nr; i++)
		change_history_add(r, &heads->oid[i], &history);
	found = found || oidset_contains(&history, version);
	oidset_clear(&history);
	return found;
}

/*
 * Append to `found` the local change that continues the remote changes
 * called `name` whose heads are among `heads`: refs/metas/<name>, created
 * if it is free, moved on if it is an earlier version of them (its head
 * is in their history), so that pushing it to where they came from is a
 * fast-forward. Nothing is appended if that name is another change's:
 * the change is then named as any other, and its history continues
 * theirs all the same.
 */
static void continue_remote_change(struct rewrite_batch *batch,
				   const char *name,
				   const struct oid_array *heads,
				   const struct object_id *new,
				   struct string_list *found)
{
	struct ref_store *refs = get_main_ref_store(batch->repo);
	struct strbuf refname = STRBUF_INIT;
	struct string_list_item *change = NULL;
	struct object_id local;

	strbuf_add_local_change_refname(&refname, name);
	if (unsorted_string_list_has_string(&batch->changes, refname.buf))
		; /* an earlier rewrite of the batch took it */
	else if (refs_read_ref_full(refs, refname.buf, 0, &local, NULL))
		change = change_name_taken(refs, refname.buf, 1) ? NULL :
			batch_add(batch, refname.buf, NULL, new);
	else if (in_history_of(batch->repo, heads, &local))
		change = batch_add(batch, refname.buf, &local, new);
	if (change)
		found_add(found, change);
	strbuf_release(&refname);
}

/*
 * Move the changes in `found` (util: their struct batch_change) to the
 * metacommit `head` of `content`, with the reflog message `msg`. With
 * `keep_existing` (a copy), the changes that existed before the batch
 * are origins, which stay where they are.
 */
static void batch_advance(struct string_list *found,
			  const struct object_id *head,
			  const struct object_id *content, const char *msg,
			  int keep_existing)
{
	struct string_list_item *item;

	for_each_string_list_item(item, found) {
		struct batch_change *change = item->util;

		if (keep_existing && !is_null_oid(&change->old))
			continue;
		oidcpy(&change->head, head);
		oidcpy(&change->content, content);
		free(change->msg);
		change->msg = xstrdup(msg);
	}
}

/* Record that `new` was made from the commits in `olds`. */
static int batch_record(struct rewrite_batch *batch, const struct object_id *new,
			const struct oid_array *olds, struct strbuf *err)
{
	struct repository *r = batch->repo;
	struct metacommit_data metacommit = METACOMMIT_DATA_INIT;
	struct oid_array *parents = batch->type == REWRITE_COPY ?
		&metacommit.origin : &metacommit.replace;
	struct string_list found = STRING_LIST_INIT_NODUP;
	struct strbuf remote_name = STRBUF_INIT;
	struct oid_array remote_heads = OID_ARRAY_INIT;
	struct commit *content;
	struct object_id target;
	char *msg = NULL;
	int ret = -1;

	if (check_content(r, new, &content, err))
		goto out;
	oidcpy(&metacommit.content, new);
	for (size_t i = 0; i < olds->nr; i++) {
		size_t nr = found.nr;

		/*
		 * Continue the history of the old commit if it has one: a
		 * local change's, else (for a rewrite) a remote change's.
		 */
		batch_find(batch, &olds->oid[i], &found);
		if (found.nr == nr &&
		    !(batch->type == REWRITE_MODIFY &&
		      batch_find_remote(batch, &olds->oid[i], &remote_heads,
					&remote_name)) &&
		    !oideq(&olds->oid[i], new))
			oid_array_append_unique(parents, &olds->oid[i]);
		for (; nr < found.nr; nr++) {
			struct batch_change *change = found.items[nr].util;

			oid_array_append_unique(parents, &change->head);
		}
	}

	for (size_t i = 0; i < remote_heads.nr; i++)
		oid_array_append_unique(parents, &remote_heads.oid[i]);

	msg = describe(r, content, batch->reason);
	if (write_metacommit(r, &metacommit, msg, &target, err))
		goto out;

	if (!found.nr && remote_name.len)
		continue_remote_change(batch, remote_name.buf, &remote_heads,
				       new, &found);
	if (batch->type == REWRITE_COPY || !found.nr) {
		/*
		 * A copy is a new change. So is the replacement of commits
		 * without a change; it is named after the replaced commit, as
		 * if that had had a change all along.
		 */
		struct commit *name_from = content;
		struct strbuf refname = STRBUF_INIT;

		if (batch->type == REWRITE_MODIFY)
			name_from = lookup_commit_reference(r, &olds->oid[0]);
		new_change_refname(r, name_from, &batch->changes,
				   batch->thorough, &refname);
		found_add(&found, batch_add(batch, refname.buf, NULL, new));
		strbuf_release(&refname);
	}

	batch_advance(&found, &target, new, msg,
		      batch->type == REWRITE_COPY);
	ret = 0;

out:
	metacommit_data_clear(&metacommit);
	string_list_clear(&found, 0);
	strbuf_release(&remote_name);
	oid_array_clear(&remote_heads);
	free(msg);
	return ret;
}

/*
 * Record that `commit` was dropped: the changes that hold it advance to a
 * metacommit that abandons it ("a <commit> r <their heads>"), as "git
 * change abandon" does. A commit that no change holds is left alone.
 */
static int batch_drop(struct rewrite_batch *batch,
		      const struct object_id *commit, struct strbuf *err)
{
	struct repository *r = batch->repo;
	struct metacommit_data metacommit = METACOMMIT_DATA_INIT;
	struct string_list found = STRING_LIST_INIT_NODUP;
	struct string_list_item *item;
	struct commit *content;
	struct object_id target;
	char *reason = NULL, *msg = NULL;
	int ret = -1;

	batch_find(batch, commit, &found);
	if (!found.nr) {
		ret = 0;
		goto out;
	}
	if (check_content(r, commit, &content, err))
		goto out;
	oidcpy(&metacommit.content, commit);
	metacommit.abandoned = 1;
	for_each_string_list_item(item, &found) {
		struct batch_change *change = item->util;

		oid_array_append_unique(&metacommit.replace, &change->head);
	}
	reason = xstrfmt("%s (drop)", batch->reason);
	msg = describe(r, content, reason);
	if (write_metacommit(r, &metacommit, msg, &target, err))
		goto out;
	batch_advance(&found, &target, commit, msg, 0);
	ret = 0;

out:
	metacommit_data_clear(&metacommit);
	string_list_clear(&found, 0);
	free(reason);
	free(msg);
	return ret;
}

/*
 * Queue the moves of the batch into `transaction`, and save the changes
 * as they were for the --abort of a command in progress.
 */
static int batch_queue(struct rewrite_batch *batch,
		       struct ref_transaction *transaction, struct strbuf *err)
{
	struct string_list_item *item;
	struct change_move *moves;
	size_t nr = 0;
	int ret = -1;

	/* The metacommits must be on disk before a change refers to them. */
	if (batch_release_writes(batch)) {
		strbuf_addstr(err, _("could not write the metacommits"));
		return -1;
	}
	/*
	 * Never overwrite what somebody else did meanwhile. The heads are
	 * metacommits just written: no need to check them.
	 */
	CALLOC_ARRAY(moves, batch->changes.nr + batch->moves_nr);
	for_each_string_list_item(item, &batch->changes) {
		struct batch_change *change = item->util;

		if (!change->msg)
			continue;
		moves[nr].refname = item->string;
		moves[nr].old = &change->old;
		moves[nr].new = &change->head;
		moves[nr].msg = change->msg;
		nr++;
	}
	if (queue_change_moves(batch->repo, transaction, moves, nr,
			       CHANGE_MOVES_NEW_OBJECTS, batch->reason, err))
		goto out;

	/* The changes among the other refs (those hidden, say), then the rest. */
	nr = 0;
	for (size_t i = 0; i < batch->moves_nr; i++) {
		const struct ref_move *move = &batch->moves[i];

		/* A change of the batch moves with it, from the move's value. */
		if (!is_change_refname(move->refname) ||
		    (!is_null_oid(&move->new) &&
		     unsorted_string_list_has_string(&batch->changes,
						     move->refname)))
			continue;
		moves[nr].refname = move->refname;
		moves[nr].old = &move->old;
		moves[nr].new = &move->new;
		/* The first pass used the array: the reason, not its message. */
		moves[nr].msg = NULL;
		nr++;
	}
	if (queue_change_moves(batch->repo, transaction, moves, nr, 0,
			       batch->reason, err))
		goto out;
	for (size_t i = 0; i < batch->moves_nr; i++) {
		const struct ref_move *move = &batch->moves[i];

		if (is_change_refname(move->refname))
			continue;
		if (is_null_oid(&move->new) ?
		    ref_transaction_delete(transaction, move->refname,
					   &move->old, NULL, 0, batch->reason,
					   err) :
		    ref_transaction_update(transaction, move->refname,
					   &move->new, &move->old, NULL, NULL,
					   0, batch->reason, err))
			goto out;
	}
	ret = 0;
out:
	free(moves);
	return ret;
}

/* Once the transaction is committed: the content index learns the moves. */
static void batch_index(struct rewrite_batch *batch)
{
	struct string_list_item *item;

	for_each_string_list_item(item, &batch->changes) {
		struct batch_change *change = item->util;

		if (change->msg)
			index_change(batch->repo, &change->content, item->string);
	}
}

/*
 * Move all changes of the batch in a single transaction. Returns 0, or
 * what ref_transaction_commit() returns (or -1) with a message in `err`.
 */
static int batch_commit(struct rewrite_batch *batch, struct strbuf *err)
{
	struct ref_transaction *transaction;
	int ret = -1;

	transaction = ref_store_transaction_begin(get_main_ref_store(batch->repo),
						  0, err);
	if (transaction && !batch_queue(batch, transaction, err)) {
		ret = ref_transaction_commit(transaction, err);
		if (!ret)
			batch_index(batch);
	}
	ref_transaction_free(transaction);
	return ret;
}

static void batch_clear(struct rewrite_batch *batch)
{
	struct string_list_item *item;

	/* Nothing refers to them after a failure, but end the hold. */
	batch_release_writes(batch);
	for_each_string_list_item(item, &batch->changes) {
		struct batch_change *change = item->util;

		free(change->msg);
	}
	string_list_clear(&batch->changes, 1);
	if (batch->remote_changes) {
		change_table_clear(batch->remote_changes);
		FREE_AND_NULL(batch->remote_changes);
	}
}

/* Add the rewrites in `rewrites`, of type `type`, to `batch`. */
static int batch_add_rewrites(struct rewrite_batch *batch,
			      const struct commit_rewrite *rewrites, size_t nr,
			      enum rewrite_type type, struct strbuf *err)
{
	struct oid_array olds = OID_ARRAY_INIT;
	int ret = 0;

	if (nr > 1)
		batch_hold_writes(batch);
	batch->type = type;
	for (size_t i = 0; !ret && i < nr; i++) {
		const struct object_id *new = &rewrites[i].new;

		/* Already recorded with its group. */
		for (size_t j = 0; j < i; j++)
			if (oideq(&rewrites[j].new, new))
				goto next;

		/* The squashed commits all are in a row, but be lenient. */
		oid_array_clear(&olds);
		for (size_t j = i; j < nr; j++)
			if (oideq(&rewrites[j].new, new))
				oid_array_append_unique(&olds, &rewrites[j].old);
		/*
		 * A commit left as it was (fast-forwarded) is no rewrite,
		 * unless others were rewritten into it: a merge of two
		 * versions that is one of them replaces the other.
		 */
		if (olds.nr == 1 && oideq(&olds.oid[0], new))
			continue;
		ret = batch_record(batch, new, &olds, err);
	next:
		;
	}
	oid_array_clear(&olds);
	return ret;
}

/* What fills a batch for record_batch(). */
struct batch_contents {
	const struct commit_rewrite *copies;
	size_t copies_nr;
	const struct commit_rewrite *rewrites;
	size_t rewrites_nr;
	const struct oid_array *dropped;
	/* The changes the caller knows, for record_rewrites_and_move_refs(). */
	const struct string_list *known_changes;
};

/* Add the changes the caller knows to the batch, as they are or moved. */
static void batch_add_known(struct rewrite_batch *batch,
			    const struct string_list *known_changes)
{
	const struct string_list_item *item;

	for_each_string_list_item(item, known_changes) {
		const struct change_head *change = item->util;
		const struct ref_move *moved = NULL;
		struct batch_change *added;

		for (size_t i = 0; !moved && i < batch->moves_nr; i++)
			if (!strcmp(batch->moves[i].refname, item->string) &&
			    !is_null_oid(&batch->moves[i].new))
				moved = &batch->moves[i];
		added = batch_add(batch, item->string,
				  moved ? &moved->old : &change->head,
				  &change->content)->util;
		if (moved) {
			/* Moved even if no rewrite is recorded for it. */
			oidcpy(&added->head, &moved->new);
			added->msg = xstrdup(batch->reason);
		}
	}
}

static int batch_fill(struct rewrite_batch *batch,
		      const struct batch_contents *contents,
		      struct strbuf *err)
{
	size_t dropped_nr = contents->dropped ? contents->dropped->nr : 0;
	int ret;

	if (contents->known_changes)
		batch_add_known(batch, contents->known_changes);
	if (dropped_nr && contents->rewrites_nr + dropped_nr > 1)
		batch_hold_writes(batch);
	/* Copies first, so that their origins are the changes as they were. */
	ret = batch_add_rewrites(batch, contents->copies, contents->copies_nr,
				 REWRITE_COPY, err);
	if (!ret)
		ret = batch_add_rewrites(batch, contents->rewrites,
					 contents->rewrites_nr, REWRITE_MODIFY,
					 err);
	for (size_t i = 0; !ret && i < dropped_nr; i++)
		ret = batch_drop(batch, &contents->dropped->oid[i], err);
	return ret;
}

/*
 * Fill `batch` with `contents` and commit it. Every commit creates a
 * change, so new changes are named looking only for a ref of the same
 * name at first: looking for refs in their way reads every loose change
 * ref with the files backend, again after each transaction, which made
 * each pick of a cherry-pick read them all. The transaction finds a ref
 * in the way, or one that another process created meanwhile; then the
 * batch is filled again, naming thoroughly, as create_change() does.
 */
static int record_batch(struct rewrite_batch *batch,
			const struct batch_contents *contents,
			struct strbuf *err)
{
	size_t err_len = err->len;
	int ret;

	for (;;) {
		ret = batch_fill(batch, contents, err);
		if (!ret)
			ret = batch_commit(batch, err);
		batch_clear(batch);
		if (batch->thorough || !name_was_taken(ret))
			return ret;
		batch->thorough = 1;
		strbuf_setlen(err, err_len);
	}
}

int record_copies_and_rewrites(struct repository *r,
			       const struct commit_rewrite *copies,
			       size_t copies_nr,
			       const struct commit_rewrite *rewrites,
			       size_t rewrites_nr, const char *reason,
			       struct strbuf *err)
{
	struct rewrite_batch batch = {
		.repo = r,
		.reason = reason,
		.changes = STRING_LIST_INIT_DUP,
	};
	struct batch_contents contents = {
		.copies = copies,
		.copies_nr = copies_nr,
		.rewrites = rewrites,
		.rewrites_nr = rewrites_nr,
	};

	return record_batch(&batch, &contents, err);
}

int record_rewrites_and_drops(struct repository *r,
			      const struct commit_rewrite *rewrites, size_t nr,
			      const struct oid_array *dropped,
			      const char *reason, struct strbuf *err)
{
	struct rewrite_batch batch = {
		.repo = r,
		.reason = reason,
		.changes = STRING_LIST_INIT_DUP,
	};
	struct batch_contents contents = {
		.rewrites = rewrites,
		.rewrites_nr = nr,
		.dropped = dropped,
	};

	return record_batch(&batch, &contents, err);
}

int record_rewrites_and_move_refs(struct repository *r,
				  const struct string_list *known_changes,
				  const struct commit_rewrite *rewrites,
				  size_t nr, const struct ref_move *moves,
				  size_t moves_nr, const char *reason,
				  struct strbuf *err)
{
	struct rewrite_batch batch = {
		.repo = r,
		.reason = reason,
		.changes = STRING_LIST_INIT_DUP,
		.moves = moves,
		.moves_nr = moves_nr,
		.all_changes_known = 1,
	};
	struct batch_contents contents = {
		.rewrites = rewrites,
		.rewrites_nr = nr,
		.known_changes = known_changes,
	};

	return record_batch(&batch, &contents, err);
}

struct change_recording {
	struct rewrite_batch batch;
};

struct change_recording *prepare_rewrites(struct repository *r,
					  const struct commit_rewrite *rewrites,
					  size_t nr, enum rewrite_type type,
					  const char *reason, struct strbuf *err)
{
	struct change_recording *rec = xcalloc(1, sizeof(*rec));

	rec->batch.repo = r;
	rec->batch.reason = reason;
	/* The caller's transaction cannot be tried again. */
	rec->batch.thorough = 1;
	string_list_init_dup(&rec->batch.changes);
	if (batch_add_rewrites(&rec->batch, rewrites, nr, type, err) ||
	    batch_release_writes(&rec->batch)) {
		if (!err->len)
			strbuf_addstr(err, _("could not write the metacommits"));
		finish_change_recording(rec, 0);
		return NULL;
	}
	return rec;
}

int queue_change_recording(struct change_recording *rec,
			   struct ref_transaction *transaction,
			   struct strbuf *err)
{
	return batch_queue(&rec->batch, transaction, err);
}

void finish_change_recording(struct change_recording *rec, int committed)
{
	if (!rec)
		return;
	if (committed)
		batch_index(&rec->batch);
	batch_clear(&rec->batch);
	free(rec);
}

struct change_recording *start_change_preview(struct repository *r)
{
	struct change_recording *rec = xcalloc(1, sizeof(*rec));

	rec->batch.repo = r;
	rec->batch.thorough = 1;
	rec->batch.held_by_caller = 1;
	string_list_init_dup(&rec->batch.changes);
	return rec;
}

int preview_rewrites(struct change_recording *rec,
		     const struct commit_rewrite *rewrites, size_t nr,
		     enum rewrite_type type, const char *reason,
		     struct strmap *moved, struct strbuf *err)
{
	struct string_list_item *item;

	rec->batch.reason = reason;
	if (batch_add_rewrites(&rec->batch, rewrites, nr, type, err))
		return -1;
	for_each_string_list_item(item, &rec->batch.changes) {
		struct batch_change *change = item->util;

		if (change->msg)
			strmap_put(moved, item->string, &change->head);
	}
	return 0;
}

int record_rewrites(struct repository *r, const struct commit_rewrite *rewrites,
		    size_t nr, enum rewrite_type type, const char *reason,
		    struct strbuf *err)
{
	if (type == REWRITE_COPY)
		return record_copies_and_rewrites(r, rewrites, nr, NULL, 0,
						  reason, err);
	return record_copies_and_rewrites(r, NULL, 0, rewrites, nr, reason,
					  err);
}

int modify_change(struct repository *r, const struct object_id *old_commit,
		  const struct object_id *new_commit, const char *reason,
		  struct strbuf *err)
{
	struct commit_rewrite rewrite;

	oidcpy(&rewrite.old, old_commit);
	oidcpy(&rewrite.new, new_commit);
	return record_rewrites(r, &rewrite, 1, REWRITE_MODIFY, reason, err);
}

int delete_changes(struct repository *r, const struct string_list *refnames,
		   const char *reason, struct strbuf *err)
{
	struct change_move *moves;
	int ret;

	CALLOC_ARRAY(moves, refnames->nr);
	for (size_t i = 0; i < refnames->nr; i++) {
		moves[i].refname = refnames->items[i].string;
		moves[i].old = refnames->items[i].util;
		moves[i].new = null_oid(r->hash_algo);
	}
	ret = commit_change_moves(r, moves, refnames->nr, 0, reason, err);
	free(moves);
	return ret ? -1 : 0;
}

int move_changes(struct repository *r, const struct ref_move *moves,
		 size_t nr, const char *reason, struct strbuf *err)
{
	struct change_move *queued;
	int ret;

	CALLOC_ARRAY(queued, nr);
	for (size_t i = 0; i < nr; i++) {
		queued[i].refname = moves[i].refname;
		queued[i].old = &moves[i].old;
		queued[i].new = &moves[i].new;
	}
	ret = commit_change_moves(r, queued, nr, 0, reason, err);
	/* Recording finds the changes that moved by their new content. */
	for (size_t i = 0; !ret && i < nr; i++) {
		struct object_id content;

		if (is_null_oid(&moves[i].new))
			continue;
		oidcpy(&content, &moves[i].new);
		peel_change_head(r, moves[i].refname, &content);
		index_change(r, &content, moves[i].refname);
	}
	free(queued);
	return ret ? -1 : 0;
}

/*
 * "git merge --squash" leaves the commit to "git commit", like SQUASH_MSG,
 * and lists the squashed commits here, one per line, newest first.
 */
static char *squashed_commits_path(struct repository *r)
{
	return repo_git_path(r, "SQUASH_COMMITS");
}

void save_squashed_commits(struct repository *r, const struct oid_array *commits)
{
	struct strbuf buf = STRBUF_INIT;
	char *path = squashed_commits_path(r);

	for (size_t i = 0; i < commits->nr; i++)
		strbuf_addf(&buf, "%s\n", oid_to_hex(&commits->oid[i]));
	write_file_buf(path, buf.buf, buf.len);
	free(path);
	strbuf_release(&buf);
}

void remove_squashed_commits(struct repository *r)
{
	char *path = squashed_commits_path(r);

	unlink_or_warn(path);
	free(path);
}

int record_squash(struct repository *r, const struct object_id *commit,
		  const char *reason, struct strbuf *err)
{
	struct commit_rewrite *rewrites = NULL;
	size_t nr = 0, alloc = 0;
	struct strbuf buf = STRBUF_INIT;
	char *path = squashed_commits_path(r);
	const char *p;
	int ret = -1;

	if (strbuf_read_file(&buf, path, 0) < 0) {
		ret = errno == ENOENT ? 1 : error_errno(_("could not read '%s'"), path);
		goto out;
	}
	for (p = buf.buf; *p; ) {
		struct commit_rewrite rewrite;

		if (parse_oid_hex_algop(p, &rewrite.old, &p, r->hash_algo) ||
		    *p++ != '\n') {
			strbuf_addf(err, _("could not parse '%s'"), path);
			goto out;
		}
		oidcpy(&rewrite.new, commit);
		ALLOC_GROW(rewrites, nr + 1, alloc);
		rewrites[nr++] = rewrite;
	}
	if (!nr) {
		ret = 1;
		goto out;
	}
	/* Oldest first, as the commits squashed by a rebase are recorded. */
	for (size_t i = 0; i < nr / 2; i++)
		SWAP(rewrites[i], rewrites[nr - 1 - i]);
	ret = record_rewrites(r, rewrites, nr, REWRITE_COPY, reason, err);

out:
	free(rewrites);
	free(path);
	strbuf_release(&buf);
	return ret;
}

/*
 * Restore the abandoned change `refname` (whose head is `head`): advance
 * it to a metacommit whose content is the abandoned commit and that
 * replaces the abandoning one, so that the change is live again with
 * its history.
 */
static int unabandon_change(struct repository *r, const char *refname,
			    const struct object_id *head, struct strbuf *err)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct change_move move = { 0 };
	struct object_id meta;
	struct commit *commit = lookup_commit(r, head);
	char *msg = NULL;
	int ret = -1;

	if (!commit ||
	    parse_metacommit(r, commit, &data, err) != METACOMMIT_TYPE_ABANDONED) {
		strbuf_reset(err);
		strbuf_addf(err, _("change '%s' is neither hidden nor abandoned"),
			    refname + strlen("refs/"));
		goto out;
	}
	data.abandoned = 0;
	oid_array_clear(&data.replace);
	oid_array_clear(&data.origin);
	oid_array_append(&data.replace, head);
	msg = describe(r, lookup_commit(r, &data.content), "change restore");
	if (write_metacommit(r, &data, msg, &meta, err))
		goto out;
	move.refname = refname;
	move.old = head;
	move.new = &meta;
	if (commit_change_moves(r, &move, 1, CHANGE_MOVES_NEW_OBJECTS, msg, err))
		goto out;
	index_change(r, &data.content, refname);
	ret = 0;
out:
	free(msg);
	metacommit_data_clear(&data);
	return ret;
}

/* Whether one of the refnames `a` and `b` is a directory of the other. */
static int refnames_nest(const char *a, const char *b)
{
	const char *rest;

	return (skip_prefix(b, a, &rest) && *rest == '/') ||
	       (skip_prefix(a, b, &rest) && *rest == '/');
}

int restore_change(struct repository *r, const char *name,
		   struct strbuf *restored, struct strbuf *err)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct change_move moves[2] = { 0 };
	struct strbuf hidden = STRBUF_INIT;
	struct object_id oid;
	int ret = -1;

	if (!skip_prefix(name, HIDDEN_CHANGES_REF_PREFIX, &name) &&
	    !skip_prefix(name, "hiddenmetas/", &name) &&
	    !skip_prefix(name, CHANGES_REF_PREFIX, &name))
		skip_prefix(name, "metas/", &name);
	strbuf_addf(&hidden, "%s%s", HIDDEN_CHANGES_REF_PREFIX, name);
	strbuf_addf(restored, "%s%s", CHANGES_REF_PREFIX, name);
	if (check_refname_format(hidden.buf, 0) ||
	    refs_read_ref(refs, hidden.buf, &oid)) {
		/* Not hidden: an abandoned change comes back where it is. */
		if (!check_refname_format(restored->buf, 0) &&
		    !refs_read_ref(refs, restored->buf, &oid))
			ret = unabandon_change(r, restored->buf, &oid, err);
		else
			strbuf_addf(err, _("no hidden or abandoned change '%s'"),
				    name);
		goto out;
	}
	if (refs_ref_exists(refs, restored->buf)) {
		strbuf_addf(err, _("change '%s' exists; rename or delete it first"),
			    restored->buf + strlen("refs/"));
		goto out;
	}

	moves[0].refname = restored->buf;
	moves[0].old = null_oid(r->hash_algo);
	moves[0].new = &oid;
	moves[1].refname = hidden.buf;
	moves[1].old = &oid;
	moves[1].new = null_oid(r->hash_algo);
	if (commit_change_moves(r, moves, ARRAY_SIZE(moves), 0,
				"change restore", err))
		goto out;
	/* Recording finds it by its content again. */
	peel_change_head(r, restored->buf, &oid);
	index_change(r, &oid, restored->buf);
	ret = 0;
out:
	strbuf_release(&hidden);
	return ret;
}

/* The timestamp of the newest reflog entry: the first one read backwards. */
static int newest_reflog_date(const char *refname UNUSED,
			      struct object_id *old_oid UNUSED,
			      struct object_id *new_oid UNUSED,
			      const char *committer UNUSED,
			      timestamp_t timestamp, int tz UNUSED,
			      const char *msg UNUSED, void *cb_data)
{
	*(timestamp_t *)cb_data = timestamp;
	return 1;
}

/*
 * When the hidden change `refname` (at `oid`) was last hidden or moved:
 * the newest entry of its reflog, or, once "git reflog expire" emptied
 * that, when its last version was recorded, which is no later. 0 when
 * neither can be read.
 */
static timestamp_t hidden_change_date(struct repository *r, const char *refname,
				      const struct object_id *oid)
{
	struct commit *head;
	timestamp_t date = 0;

	refs_for_each_reflog_ent_reverse(get_main_ref_store(r), refname,
					 newest_reflog_date, &date);
	if (date)
		return date;
	head = lookup_commit(r, oid);
	if (head && !repo_parse_commit(r, head))
		return head->date;
	return 0;
}

int expire_hidden_changes(struct repository *r, timestamp_t expire,
			  struct strbuf *err)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct string_list refnames = STRING_LIST_INIT_DUP;
	struct ref_move *moves = NULL;
	struct string_list_item *item;
	size_t nr = 0;
	int ret = 0;

	/* Its --abort would bring them back: wait for the next gc. */
	if (change_command_in_progress(r))
		return 0;
	change_refnames(r, CHANGE_KIND_HIDDEN, &refnames);
	CALLOC_ARRAY(moves, refnames.nr);
	for_each_string_list_item(item, &refnames) {
		struct ref_move *move = &moves[nr];
		timestamp_t date;

		if (refs_read_ref(refs, item->string, &move->old))
			continue;
		/* A change that cannot be dated is kept. */
		date = hidden_change_date(r, item->string, &move->old);
		if (!date || date >= expire)
			continue;
		move->refname = item->string;
		oidclr(&move->new, r->hash_algo);
		nr++;
	}
	if (nr)
		ret = move_changes(r, moves, nr, "gc: expire hidden change", err);
	free(moves);
	string_list_clear(&refnames, 0);
	return ret;
}

int copy_change(struct repository *r, const char *name,
		struct strbuf *copied, struct strbuf *err)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct change_move move = { 0 };
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct object_id head, meta;
	char *msg = NULL;
	int ret = -1;

	strbuf_add_change_refname(copied, name);
	if (!starts_with(copied->buf, CHANGES_REF_PREFIX) ||
	    check_refname_format(copied->buf, 0) ||
	    refs_read_ref(refs, copied->buf, &head)) {
		strbuf_addf(err, _("change '%s' not found"), name);
		goto out;
	}
	oidcpy(&data.content, &head);
	if (!peel_change_head(r, copied->buf, &data.content)) {
		strbuf_addf(err, _("change '%s' has no history to turn into a copy"),
			    name);
		goto out;
	}
	/* "c <content> o <head>": what it replaced, it no longer does. */
	oid_array_append(&data.origin, &head);
	msg = describe(r, lookup_commit(r, &data.content), "change copy");
	if (write_metacommit(r, &data, msg, &meta, err))
		goto out;
	move.refname = copied->buf;
	move.old = &head;
	move.new = &meta;
	if (commit_change_moves(r, &move, 1, CHANGE_MOVES_NEW_OBJECTS, msg, err))
		goto out;
	ret = 0;
out:
	metacommit_data_clear(&data);
	free(msg);
	return ret;
}

int abandon_change(struct repository *r, const struct object_id *commit,
		   struct string_list *changes, struct strbuf *err)
{
	struct metacommit_data data = METACOMMIT_DATA_INIT;
	struct change_table table;
	int ret = -1;

	change_table_init(&table);
	change_table_add_all_visible(&table, r);
	if (!change_table_has_change_referencing(&table, commit)) {
		ret = 1;
		goto out;
	}
	/* "a <commit> r <head of each change>": its changes advance. */
	oidcpy(&data.content, commit);
	data.abandoned = 1;
	oid_array_append(&data.replace, commit);
	ret = record_in_table(r, &table, &data, NULL, 0, "change abandon",
			      changes, err);
out:
	metacommit_data_clear(&data);
	change_table_clear(&table);
	return ret;
}

static int collect_local_change(const char *refname, void *cb_data)
{
	struct string_list *refnames = cb_data;

	if (starts_with(refname, CHANGES_REF_PREFIX))
		string_list_insert(refnames, refname);
	return 0;
}

void local_changes_of(struct change_table *table, const struct object_id *commit,
		      struct string_list *refnames)
{
	change_table_for_each_referencing(table, commit, collect_local_change,
					  refnames);
}

/*
 * Move the change `from`, whose head is `head`, to the name `to`: as any
 * change moves, when it has no reflog to carry over (renaming a ref would
 * start one for it in reftable); otherwise, or when the names nest (one
 * transaction cannot delete "a" and create "a/b"), by refs_rename_ref(),
 * after saving the old values for an --abort as the writer does.
 */
static int move_renamed_change(struct repository *r, const char *from,
			       const char *to, const struct object_id *head,
			       struct strbuf *err)
{
	struct ref_store *refs = get_main_ref_store(r);
	FILE *saved;

	if (!refs_reflog_exists(refs, from) && !refnames_nest(from, to)) {
		struct change_move moves[2] = {
			{ .refname = to, .new = head,
			  .old = null_oid(r->hash_algo) },
			{ .refname = from, .old = head,
			  .new = null_oid(r->hash_algo) },
		};

		return commit_change_moves(r, moves, ARRAY_SIZE(moves), 0,
					   "change rename", err);
	}
	saved = open_saved_changes(r);
	save_change(saved, r->hash_algo, from, head);
	save_change(saved, r->hash_algo, to, NULL);
	close_saved_changes(&saved);
	if (refs_rename_ref(refs, from, to, "change rename")) {
		strbuf_addf(err, _("could not rename '%s' to '%s'"),
			    from + strlen("refs/"), to + strlen("refs/"));
		return -1;
	}
	return 0;
}

int rename_change(struct repository *r, const char *old, const char *new,
		  struct strbuf *renamed, struct strbuf *err)
{
	struct ref_store *refs = get_main_ref_store(r);
	struct strbuf new_refname = STRBUF_INIT;
	struct string_list at_head = STRING_LIST_INIT_DUP;
	struct change_table table;
	struct object_id head, content;
	int ret = -1;

	change_table_init(&table);
	strbuf_add_change_refname(&new_refname, new);
	if (check_refname_format(new_refname.buf, 0)) {
		strbuf_addf(err, _("'%s' is not a valid change name"), new);
		goto out;
	}
	if (refs_ref_exists(refs, new_refname.buf)) {
		strbuf_addf(err, _("change '%s' already exists"),
			    new_refname.buf + strlen("refs/"));
		goto out;
	}

	if (old) {
		strbuf_add_change_refname(renamed, old);
	} else {
		struct metacommit_data data = METACOMMIT_DATA_INIT;

		if (refs_read_ref(refs, "HEAD", &head)) {
			strbuf_addstr(err, _("HEAD does not point to a commit"));
			goto out;
		}
		change_table_add_all_visible(&table, r);
		local_changes_of(&table, &head, &at_head);
		if (at_head.nr > 1) {
			strbuf_addstr(err, _("several changes hold HEAD; name the one to rename:"));
			for (size_t i = 0; i < at_head.nr; i++)
				strbuf_addf(err, "\n  %s",
					    at_head.items[i].string + strlen("refs/"));
			goto out;
		}
		if (!at_head.nr) {
			/* No change yet: create one with that name. */
			oidcpy(&data.content, &head);
			ret = record_in_table(r, &table, &data, new_refname.buf,
					      0, "change rename", NULL, err);
			goto out;
		}
		strbuf_addstr(renamed, at_head.items[0].string);
	}

	if (refs_read_ref(refs, renamed->buf, &head)) {
		strbuf_addf(err, _("change '%s' not found"), old);
		goto out;
	}
	if (move_renamed_change(r, renamed->buf, new_refname.buf, &head, err))
		goto out;
	/* Recording finds it by its content under its new name. */
	oidcpy(&content, &head);
	peel_change_head(r, new_refname.buf, &content);
	index_change(r, &content, new_refname.buf);
	ret = 0;
out:
	change_table_clear(&table);
	string_list_clear(&at_head, 0);
	strbuf_release(&new_refname);
	return ret;
}
