/*
 * limits.h - every named bound of dbprint-index and dbprint-serve.
 *
 * A limit lives here, once, with the reason for its value.  Code never
 * writes a bare number where one of these applies.
 */
#ifndef DBPRINT_LIMITS_H
#define DBPRINT_LIMITS_H

/* Largest print file read, in bytes.  The biggest statistics.yaml seen in
 * real prints is a few MB (sketch payloads); 64 MiB leaves ample room and
 * still stops a runaway file from exhausting memory. */
#define DBP_MAX_FILE_BYTES	(64L * 1024 * 1024)

/* Deepest YAML/JSON nesting accepted.  Print files nest about 8 deep. */
#define DBP_MAX_DEPTH		64

/* Most aliases one YAML document may dereference, and most nodes an
 * expansion may produce: together they stop "billion laughs". */
#define DBP_MAX_ALIASES		1024
#define DBP_MAX_NODES		(4L * 1024 * 1024)

/* Longest path we build. */
#define DBP_MAX_PATH		4096

/* Largest scalar (one string value) in a YAML file. */
#define DBP_MAX_SCALAR		(16L * 1024 * 1024)

/* The reply bound of the MCP spec (section 4.8), in characters of the text
 * a client receives. */
#define DBP_PAGE_CHARS		20000

/* Longest JSON-RPC line read from stdin (a frame).  Requests are small;
 * 4 MiB is generous and bounds memory per frame. */
#define DBP_MAX_FRAME		(4L * 1024 * 1024)

/* Most connections one .dbprint.yaml may declare. */
#define DBP_MAX_CONNECTIONS	256

#endif /* DBPRINT_LIMITS_H */
