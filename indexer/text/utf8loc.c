/*
 * utf8loc.c - the one C.UTF-8 locale of both programs (utf8loc.h).
 */
#define _POSIX_C_SOURCE	200809L

#include <locale.h>
#include <pthread.h>

#include "text/utf8loc.h"

static pthread_once_t	 utf8loc_once = PTHREAD_ONCE_INIT;
static locale_t		 utf8loc = (locale_t)0;

static void
utf8loc_init(void)
{
	utf8loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

locale_t
dbp_utf8_locale(void)
{
	pthread_once(&utf8loc_once, utf8loc_init);
	return utf8loc;
}
