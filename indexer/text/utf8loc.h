/*
 * utf8loc.h - the one C.UTF-8 locale of both programs (utf8loc.c).
 * Include it with POSIX.1-2008 visible (_POSIX_C_SOURCE 200809L):
 * locale_t is POSIX's.
 */
#ifndef DBPRINT_UTF8LOC_H
#define DBPRINT_UTF8LOC_H

#include <locale.h>

/*
 * The C.UTF-8 LC_CTYPE locale the folds (dbp_fold) and the server's text
 * matching lower-case and classify code points with: made on the first
 * call (thread-safe) and kept for the life of the process;
 * (locale_t)0 where the system has none (the folds then know Latin-1
 * only).  Loading it reads files beneath /usr/lib/locale, which the
 * sandbox closes: both programs call it before they confine themselves.
 */
locale_t dbp_utf8_locale(void);

#endif /* DBPRINT_UTF8LOC_H */
