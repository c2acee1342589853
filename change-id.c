/*
 * The "change-id" commit header: its format, and the one place that
 * decides which id a commit being written carries (see change-id.h).
 */

#include "git-compat-util.h"
#include "change-id.h"
#include "commit.h"
#include "config.h"
#include "gettext.h"
#include "metacommit.h"
#include "odb.h"
#include "parse.h"
#include "repository.h"

#define CHANGE_ID_BYTES (CHANGE_ID_LEN / 2)

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

/* 'z' is 0, 'y' 1 ... 'k' 15: hex digits counted down from 'z'. */
static int reverse_hex_value(char c)
{
	return 'k' <= c && c <= 'z' ? 'z' - c : -1;
}

int change_id_is_valid(const char *id, size_t len)
{
	if (len != CHANGE_ID_LEN)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (reverse_hex_value(id[i]) < 0)
			return 0;
	return 1;
}

int commit_change_id(struct repository *r, struct commit *commit,
		     struct strbuf *id)
{
	const char *buffer = get_cached_commit_buffer(r, commit, NULL);
	char *read = NULL;
	const char *value;
	size_t len;
	int found = 0;

	/* Not repo_get_commit_buffer(), which dies on a missing object. */
	if (!buffer) {
		enum object_type type;
		unsigned long size;

		read = odb_read_object(r->objects, &commit->object.oid,
				       &type, &size);
		if (!read || type != OBJ_COMMIT)
			goto out;
		buffer = read;
	}
	value = find_commit_header(buffer, CHANGE_ID_HEADER, &len);
	if (value && change_id_is_valid(value, len)) {
		strbuf_reset(id);
		strbuf_add(id, value, len);
		found = 1;
	}
out:
	free(read);
	return found;
}

static int new_change_id(struct strbuf *id)
{
	unsigned char bytes[CHANGE_ID_BYTES];

	if (csprng_bytes(bytes, sizeof(bytes), 0) < 0)
		return -1;
	strbuf_reset(id);
	for (size_t i = 0; i < sizeof(bytes); i++) {
		strbuf_addch(id, 'z' - (bytes[i] >> 4));
		strbuf_addch(id, 'z' - (bytes[i] & 0xf));
	}
	return 0;
}

static void remove_change_id_headers(struct commit_extra_header **extra)
{
	while (*extra) {
		struct commit_extra_header *header = *extra;

		if (strcmp(header->key, CHANGE_ID_HEADER)) {
			extra = &header->next;
			continue;
		}
		*extra = header->next;
		header->next = NULL;
		free_commit_extra_headers(header);
	}
}

void set_change_id_header(struct repository *r,
			  struct commit_extra_header **extra,
			  struct commit *continues)
{
	struct strbuf id = STRBUF_INIT;
	struct commit_extra_header *header;

	if (!change_id_header_enabled(r))
		return;
	if (!(continues && commit_change_id(r, continues, &id)) &&
	    new_change_id(&id) < 0) {
		warning(_("could not get random bytes for a change id"));
		strbuf_release(&id);
		return;
	}
	remove_change_id_headers(extra);

	/* First, so that it follows "committer" as other tools write it. */
	CALLOC_ARRAY(header, 1);
	header->key = xstrdup(CHANGE_ID_HEADER);
	header->len = id.len;
	header->value = strbuf_detach(&id, NULL);
	header->next = *extra;
	*extra = header;
}
