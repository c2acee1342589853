/*
 * The "change-id" commit header: its format, read, checked, made and
 * put in a commit's headers (see change-id.h). Which id a commit carries
 * is decided by the change writer's layer, set_change_id_header().
 */

#include "git-compat-util.h"
#include "change-id.h"
#include "commit.h"
#include "odb.h"
#include "repository.h"

#define CHANGE_ID_BYTES (CHANGE_ID_LEN / 2)

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

unsigned char change_id_first_byte(const char *id)
{
	return reverse_hex_value(id[0]) << 4 | reverse_hex_value(id[1]);
}

int change_id_new(struct strbuf *id)
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

void change_id_put_header(struct commit_extra_header **extra,
			  const char *id)
{
	struct commit_extra_header *header;

	remove_change_id_headers(extra);
	CALLOC_ARRAY(header, 1);
	header->key = xstrdup(CHANGE_ID_HEADER);
	header->len = strlen(id);
	header->value = xstrdup(id);
	header->next = *extra;
	*extra = header;
}
