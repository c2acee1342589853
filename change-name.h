#ifndef CHANGE_NAME_H
#define CHANGE_NAME_H

struct commit;
struct repository;
struct strbuf;

/*
 * Append to `out` the default name of a new change for a commit whose
 * subject is the `len` bytes at `subject`: a few lowercase words of the
 * subject, skipping filler words, joined by dashes, such as "parse-options"
 * for "Add the parse options". The result is a valid refname component;
 * "change" is used when the subject has no usable word. The caller makes
 * the name unique.
 */
void change_name_from_subject(const char *subject, size_t len,
			      struct strbuf *out);

/*
 * Append to `out` the name of a new change for `commit`: the first line
 * that the "change-name" hook prints, if there is such a hook and its name
 * is usable (a warning says why not otherwise), or else the name
 * change_name_from_subject() gives for its subject. The caller makes the
 * name unique.
 */
void change_name_for_commit(struct repository *r, struct commit *commit,
			    struct strbuf *out);

#endif /* CHANGE_NAME_H */
