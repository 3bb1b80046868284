/* Escaping text for its destination. One scanner walks the UTF-8 and says,
 * per character, whether it is a control character or a broken byte; each
 * destination then decides what its special characters become. */
#include "escape.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Length of the UTF-8 character at s (1..4), or 0 when the bytes there are
 * not one (a stray continuation byte, an overlong form, a surrogate, a
 * truncated sequence). */
static size_t utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (!n || (n == 3 && c >= 0xf0)) return 0;
  for (size_t k = 1; k < n; k++)
    if ((s[k] & 0xc0) != 0x80) return 0;
  if (n == 3 && c == 0xe0 && s[1] < 0xa0) return 0; /* overlong */
  if (n == 3 && c == 0xed && s[1] >= 0xa0) return 0; /* UTF-16 surrogate */
  if (n == 4 && c == 0xf0 && s[1] < 0x90) return 0; /* overlong */
  if (n == 4 && c == 0xf4 && s[1] >= 0x90) return 0; /* beyond U+10FFFF */
  return n;
}

/* The character at s: its length in *len, and 1 when it must not be written
 * as it is (C0, DEL, C1 U+0080..U+009F, or not UTF-8; *len is then 1 for a
 * broken byte). */
static int scan(const char *s, size_t *len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = utf8_len(u);
  if (!n) {
    *len = 1;
    return 1;
  }
  *len = n;
  if (n == 1) return u[0] < 0x20 || u[0] == 0x7f;
  if (n == 2) return (u[0] == 0xc2 && u[1] < 0xa0) || (u[0] == 0xd8 && u[1] == 0x9c); /* C1; U+061C ALM */
  /* The bidirectional controls (U+200E-200F, U+202A-202E, U+2066-2069) reorder what a reader sees:
   * a name that shows one thing and is another (Trojan Source). */
  return n == 3 && u[0] == 0xe2 &&
         ((u[1] == 0x80 && (u[2] == 0x8e || u[2] == 0x8f || (u[2] >= 0xaa && u[2] <= 0xae))) ||
          (u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9));
}

int kg_has_control(const char *s) {
  size_t len;
  for (; *s; s += len)
    if (scan(s, &len)) return 1;
  return 0;
}

/* Walks s; for each character calls put (which returns 1 when it wrote the
 * character itself), else writes it as it is, or '?' for a bad one. */
static void walk(FILE *f, const char *s, int (*put)(FILE *, char)) {
  size_t len;
  for (; *s; s += len) {
    if (scan(s, &len)) {
      if (!put(f, *s)) fputc('?', f);
    } else if (len > 1 || !put(f, *s)) {
      fwrite(s, 1, len, f);
    }
  }
}

static int html_put(FILE *f, char c) {
  switch (c) {
  case '&': fputs("&amp;", f); return 1;
  case '<': fputs("&lt;", f); return 1;
  case '>': fputs("&gt;", f); return 1;
  case '"': fputs("&quot;", f); return 1;
  case '\'': fputs("&#39;", f); return 1;
  default: return 0;
  }
}

void kg_esc_html(FILE *f, const char *s) { walk(f, s, html_put); }

/* XML 1.0 forbids most control characters even as references: those are '?'. */
static int xml_put(FILE *f, char c) {
  switch (c) {
  case '&': fputs("&amp;", f); return 1;
  case '<': fputs("&lt;", f); return 1;
  case '>': fputs("&gt;", f); return 1;
  case '"': fputs("&quot;", f); return 1;
  case '\'': fputs("&apos;", f); return 1;
  case '\n': fputs("&#10;", f); return 1;
  case '\r': fputs("&#13;", f); return 1;
  case '\t': fputs("&#9;", f); return 1;
  default: return 0;
  }
}

void kg_esc_xml(FILE *f, const char *s) { walk(f, s, xml_put); }

static int md_put(FILE *f, char c) {
  if (c == '<') return fputs("&lt;", f), 1;
  if (c == '>') return fputs("&gt;", f), 1;
  if (c == '&') return fputs("&amp;", f), 1;
  if (c == '\n' || c == '\r' || c == '\t') return fputc(' ', f), 1;
  /* Emphasis, code spans, links and images, strikethrough, table cells, and
   * the escape character itself. */
  if (c && strchr("\\`*_[]|~", c)) return fputc('\\', f), fputc(c, f), 1;
  return 0;
}

/* WORD JOINER (U+2060): invisible, and it breaks an autolink where it stands. */
#define KG_WJ "\xe2\x81\xa0"

/* Whether GitHub would start a link, mention or reference with s[i]: a '#'
 * (#123, owner/repo#123), the ':' of "://", "www" before '.', "gh-" before
 * a digit ('@' is written as an entity and a joiner). */
static int link_trigger(const char *s, size_t i) {
  char c = s[i];
  if (c == '#') return 1;
  if (c == ':') return s[i + 1] == '/' && s[i + 2] == '/';
  if ((c | 0x20) == 'w' && i >= 2 && !strncasecmp(s + i - 2, "www", 3)) return s[i + 1] == '.';
  if (c == '-' && i >= 2 && !strncasecmp(s + i - 2, "gh", 2)) return s[i + 1] >= '0' && s[i + 1] <= '9';
  return 0;
}

void kg_esc_md(FILE *f, const char *s) {
  size_t len;
  for (size_t i = 0; s[i]; i += len) {
    if (scan(s + i, &len)) {
      if (!md_put(f, s[i])) fputc('?', f);
    } else if (len > 1) {
      fwrite(s + i, 1, len, f);
    } else if (s[i] == '@') {
      fputs("&#64;" KG_WJ, f); /* no mention, no e-mail address, even after the entity is decoded */
    } else {
      if (!md_put(f, s[i])) fputc(s[i], f);
      if (link_trigger(s, i)) fputs(KG_WJ, f);
    }
  }
}

static int csv_put(FILE *f, char c) {
  if (c == '"') return fputs("\"\"", f), 1;
  if (c == '\n' || c == '\r' || c == '\t') return fputc(' ', f), 1;
  return 0;
}

/* A field a spreadsheet would take for a formula (=, +, -, @ first) and that
 * is not simply a number. */
static int formula_like(const char *s) {
  if (!*s || !strchr("=+-@", *s)) return 0;
  char *end;
  strtod(s, &end);
  return end == s || *end != '\0';
}

void kg_esc_csv(FILE *f, const char *s) {
  int formula = formula_like(s);
  if (!formula && !strpbrk(s, ",\"")) { /* line breaks become spaces: no quotes needed */
    walk(f, s, csv_put);
    return;
  }
  fputc('"', f);
  if (formula) fputc('\'', f); /* OWASP's advice: shown as text, not run */
  walk(f, s, csv_put);
  fputc('"', f);
}

void kg_esc_gp(FILE *f, const char *s) {
  fputc('\'', f);
  size_t len;
  for (const char *p = s; *p; p += len) {
    if (scan(p, &len) || (*p == '>' && p - s >= 2 && p[-1] == ']' && p[-2] == ']')) fputc('?', f);
    else if (*p == '\'') fputs("''", f);
    else fwrite(p, 1, len, f);
  }
  fputc('\'', f);
}

const char *kg_esc_term(const char *s, char *buf, size_t len) {
  if (!len) return buf;
  size_t total = 0, n;
  for (const char *p = s; *p; p += n) total += scan(p, &n) ? 1 : n;
  /* Cut only when it does not fit, leaving room for the "...". */
  size_t room = total < len ? len - 1 : len > 3 ? len - 4 : 0, o = 0;
  for (; *s; s += n) {
    int bad = scan(s, &n);
    size_t w = bad ? 1 : n;
    if (o + w > room) break;
    if (bad) buf[o++] = '?';
    else memcpy(buf + o, s, n), o += n;
  }
  if (total >= len) {
    for (size_t k = 0; k < 3 && o + 1 < len; k++) buf[o++] = '.';
  }
  buf[o] = '\0';
  return buf;
}

int kg_term_width(const char *s) {
  int w = 0;
  for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
  return w;
}

void kg_term_cell(FILE *f, const char *s, int width) {
  fputs(s, f);
  for (int k = kg_term_width(s); k < width; k++) fputc(' ', f);
}
