/*
 * tool_reference.c - get_reference (spec 4.6): the heading tree of the
 * spec, assertions or guide document, or one section of it, paged as
 * Markdown text.  The documents and their slicing live in reference.c.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "resources/reference.h"

int
tool_get_reference(struct call *c)
{
	const cJSON *jdoc, *jsec;
	const char *docname, *section = NULL, *text, *blocks[1];
	struct dbp_diag d;
	struct ref_doc doc;
	char *owned = NULL, *out = NULL;
	size_t len, pos;
	int rc = -1, r;

	jdoc = cJSON_GetObjectItemCaseSensitive(c->args, "document");
	jsec = cJSON_GetObjectItemCaseSensitive(c->args, "section");
	if (!cJSON_IsString(jdoc))
		return call_fail(c, "get_reference requires 'document'.");
	docname = jdoc->valuestring;
	if (cJSON_IsString(jsec))
		section = jsec->valuestring;
	/* The schema check ran before; this guards a direct caller. */
	if (strcmp(docname, "spec") != 0 && strcmp(docname, "assertions") != 0 &&
	    strcmp(docname, "guide") != 0)
		return call_fail(c, "document '%s' must be one of ['assertions', "
		    "'guide', 'spec'].", docname);
	/* No print file is read: the cursor pins the arguments alone. */
	if (call_position(c, &pos) == -1)
		return -1;

	memset(&doc, 0, sizeof(doc));
	if ((text = ref_document(c->srv, docname, &len, &owned, &d)) == NULL)
		return call_fail(c, "%s", d.msg);
	if (ref_parse(text, len, &doc, &d) == -1) {
		call_fail(c, "%s", d.msg);
		goto out;
	}
	if (section == NULL) {
		if ((out = ref_toc(&doc)) == NULL) {
			call_fail(c, "out of memory");
			goto out;
		}
	} else {
		r = ref_section(&doc, docname, section,
		    strcmp(docname, "guide") == 0, &out, &d);
		if (r == -1) {
			call_fail(c, "%s", d.msg);
			goto out;
		}
		if (r == 1) {
			call_fail(c, "%s", out);
			goto out;
		}
	}
	blocks[0] = out;
	rc = page_text(c, blocks, 1, pos);
out:
	free(out);
	ref_doc_release(&doc);
	free(owned);
	return rc;
}
