/*
 * The files in which commands note what they found about changes for
 * "git status" and "git evolve" (see change-notes.h): appending, and
 * reading back what is there, checked line by line.
 */
#include "git-compat-util.h"
#include "change-notes.h"
#include "change-writer.h"
#include "gettext.h"
#include "hex.h"
#include "oid-array.h"
#include "path.h"
#include "refs.h"
#include "repository.h"
#include "strbuf.h"
#include "string-list.h"

/*
 * Append `lines` to the file `name` of the common directory, which the
 * worktrees (and others sharing the repository) append to too.
 */
static void append_common_file(struct repository *r, const char *name,
			       const struct strbuf *lines)
{
	char *path = repo_common_path(r, "%s", name);

	append_change_file(r, path, lines);
	free(path);
}

void note_orphaned(struct repository *r, const struct oid_array *replaced)
{
	struct strbuf lines = STRBUF_INIT;

	for (size_t i = 0; i < replaced->nr; i++)
		strbuf_addf(&lines, "%s\n", oid_to_hex(&replaced->oid[i]));
	append_common_file(r, ORPHANED_FILE, &lines);
	strbuf_release(&lines);
}

void read_orphaned(struct repository *r, struct oid_array *replaced)
{
	char *path = repo_common_path(r, ORPHANED_FILE);
	struct strbuf buf = STRBUF_INIT;
	const char *p;

	if (strbuf_read_file(&buf, path, 0) < 0) {
		if (errno != ENOENT)
			warning_errno(_("could not read '%s'"), path);
		goto out;
	}
	for (p = buf.buf; *p; ) {
		const char *eol = strchrnul(p, '\n');
		struct object_id oid;
		const char *end;

		if (!parse_oid_hex_algop(p, &oid, &end, r->hash_algo) &&
		    end == eol)
			oid_array_append(replaced, &oid);
		p = *eol ? eol + 1 : eol;
	}
	if (replaced->nr > ORPHANED_MAX) {
		size_t drop = replaced->nr - ORPHANED_MAX;

		MOVE_ARRAY(replaced->oid, replaced->oid + drop, ORPHANED_MAX);
		replaced->nr = ORPHANED_MAX;
	}
out:
	strbuf_release(&buf);
	free(path);
}

size_t read_noted_lines(struct repository *r, const char *name,
			size_t max, struct strbuf *buf,
			struct string_list *lines)
{
	char *path = repo_common_path(r, "%s", name);

	if (strbuf_read_file(buf, path, 0) < 0) {
		if (errno != ENOENT)
			warning_errno(_("could not read '%s'"), path);
	} else {
		string_list_split_in_place(lines, buf->buf, "\n", -1);
	}
	free(path);
	return lines->nr > max ? lines->nr - max : 0;
}

void note_divergent(struct repository *r, const char *local,
		    const char *other)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "%s %s\n", local, other);
	append_common_file(r, DIVERGENT_FILE, &line);
	strbuf_release(&line);
}

void note_newer(struct repository *r, const char *local,
		const struct object_id *fetched,
		const struct object_id *head)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "%s %s", local, oid_to_hex(fetched));
	strbuf_addf(&line, " %s\n", oid_to_hex(head));
	append_common_file(r, NEWER_FILE, &line);
	strbuf_release(&line);
}

void read_noted_newer(struct repository *r, struct string_list *out)
{
	struct strbuf buf = STRBUF_INIT;
	struct string_list lines = STRING_LIST_INIT_NODUP;
	size_t first = read_noted_lines(r, NEWER_FILE, NEWER_MAX, &buf, &lines);

	for (size_t i = first; i < lines.nr; i++) {
		char *refname = lines.items[i].string;
		char *rest = strchr(refname, ' ');
		struct newer_version version;
		struct string_list_item *item;
		const char *end;

		if (!rest)
			continue;
		*rest++ = '\0';
		if (!starts_with(refname, CHANGES_REF_PREFIX) ||
		    check_refname_format(refname, 0) ||
		    parse_oid_hex_algop(rest, &version.fetched, &end,
					r->hash_algo) || *end != ' ' ||
		    parse_oid_hex_algop(end + 1, &version.head, &end,
					r->hash_algo) || *end)
			continue;
		item = string_list_insert(out, refname);
		if (!item->util)
			item->util = xmalloc(sizeof(version));
		memcpy(item->util, &version, sizeof(version));
	}
	string_list_clear(&lines, 0);
	strbuf_release(&buf);
}
