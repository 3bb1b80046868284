/* Text for where it goes. Strings in results, baselines and histories come
 * from other machines, so every writer that puts one into HTML, Markdown,
 * CSV, XML, a gnuplot file or a terminal passes it through one of these.
 * Each one also replaces control characters (C0, DEL and the C1 range
 * U+0080..U+009F, which some terminals obey as ESC) and bytes that are not
 * UTF-8 with '?', so a line stays one line and a terminal stays a terminal. */
#ifndef KG_ESCAPE_H
#define KG_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* HTML text and attribute values: & < > " ' as entities. */
void kg_esc_html(FILE *f, const char *s);
/* XML 1.0 text and attribute values (JUnit): entities for & < > " ', line
 * breaks and tabs as character references. */
void kg_esc_xml(FILE *f, const char *s);
/* Markdown text, table cells included: the characters that make emphasis,
 * code, links, images, HTML or a new cell are backslash-escaped or written as
 * entities (< > &); a line break becomes a space. Nothing becomes a link,
 * a mention or a reference on GitHub either: '@' is an entity, and a WORD
 * JOINER (U+2060, invisible) follows every other autolink trigger ('#', the
 * ':' of "://", "www" before '.', "gh-" before a digit). */
void kg_esc_md(FILE *f, const char *s);
/* One CSV field (RFC 4180): line breaks become spaces; quoted, with quotes
 * doubled, when it holds a comma or a quote; a field a spreadsheet would take
 * for a formula (=, +, -, @ first, and not a number) is quoted after a '. */
void kg_esc_csv(FILE *f, const char *s);
/* A gnuplot string literal, quotes included: single-quoted, where gnuplot
 * expands neither backquotes nor @macros nor backslashes; ' is doubled. A
 * '>' after "]]" becomes '?' too: gnuplot's SVG terminal escapes < and & but
 * not "]]>", which would make the SVG ill-formed. */
void kg_esc_gp(FILE *f, const char *s);
/* For the terminal and one-line messages: control characters, bidirectional
 * controls (U+200E-200F, U+202A-202E, U+2066-2069, U+061C) and non-UTF-8
 * bytes become '?' (as in every escaper here), and text beyond len - 1 bytes is cut at a character
 * boundary with "..." at the end. Returns buf. */
const char *kg_esc_term(const char *s, char *buf, size_t len);

/* Columns a terminal gives s (kg_esc_term's output: UTF-8, no control
 * characters): its code points. */
int kg_term_width(const char *s);
/* s, then spaces up to width columns (a table's cell sized to its column's
 * longest value, so a long value never shifts the columns after it). */
void kg_term_cell(FILE *f, const char *s, int width);

/* 1 when s holds a control character (C0, DEL, C1), a bidirectional control
 * or is not UTF-8. */
int kg_has_control(const char *s);

#endif
