// The leader-following rule of the display agent (src/follow.c) against the table of cases every
// implementation shares: Tests/Fixtures/leader-following.tsv (its format is described at its top).
// Usage: leader_following_test <table>. Prints one line per failure; exits 1 if any, 2 if the table
// cannot be read. Run by `make test` (make leader-following-test).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "follow.h"

#define MAX_WORDS 64

static int failures;
static int line_number;
static const char *case_name = "";

static void fail(const char *what, const char *expected, const char *got) {
    fprintf(stderr, "leader-following.tsv:%d: [%s] %s: expected %s, got %s\n", line_number, case_name, what, expected, got);
    failures++;
}

static void bad_line(const char *text) {
    fprintf(stderr, "leader-following.tsv:%d: cannot read \"%s\"\n", line_number, text);
    exit(2);
}

static const char *decision_name(follow_decision d) {
    switch (d) {
    case FOLLOW_FOLLOW: return "follow";
    case FOLLOW_SAME: return "same";
    case FOLLOW_NO_ENDPOINT: return "no-endpoint";
    case FOLLOW_LOWER_TERM: return "lower-term";
    case FOLLOW_LEFT_FOR_SILENCE: return "left-for-silence";
    }
    return "?";
}

static uint64_t number(const char *word, const char *text) {
    char *end;
    unsigned long long value = strtoull(word, &end, 10);
    if (!*word || *end) bad_line(text);
    return value;
}

static int choice(const char *word, const char *yes, const char *no, const char *text) {
    if (strcmp(word, yes) == 0) return 1;
    if (strcmp(word, no) == 0) return 0;
    bad_line(text);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s Tests/Fixtures/leader-following.tsv\n", argv[0]);
        return 2;
    }
    FILE *table = fopen(argv[1], "r");
    if (!table) {
        perror(argv[1]);
        return 2;
    }
    static char names[1024], endpoint_storage[4096], raw[4096], line[4096];
    const char *endpoints[MAX_WORDS];
    leader_follower f;
    int cases = 0, steps = 0, have_follower = 0;
    while (fgets(line, sizeof line, table)) {
        line_number++;
        line[strcspn(line, "\n")] = 0;
        snprintf(raw, sizeof raw, "%s", line);
        char *words[MAX_WORDS];
        int n = 0;
        for (char *word = strtok(line, " \t"); word && n < MAX_WORDS; word = strtok(NULL, " \t")) words[n++] = word;
        if (n == 0 || words[0][0] == '#') continue;
        const char *directive = words[0];
        char got[64], expected[64];
        if (strcmp(directive, "case") == 0) {
            const char *rest = raw + (words[1] ? (size_t)(words[1] - line) : strlen(raw));
            snprintf(names, sizeof names, "%s", rest);
            case_name = names;
            have_follower = 0;
            cases++;
            continue;
        }
        if (!cases) bad_line(raw);
        if (strcmp(directive, "endpoints") == 0) {
            if (n < 2) bad_line(raw);
            size_t used = 0;
            for (int i = 1; i < n; i++) {
                size_t length = strlen(words[i]) + 1;
                if (used + length > sizeof endpoint_storage) bad_line(raw);
                memcpy(endpoint_storage + used, words[i], length);
                endpoints[i - 1] = endpoint_storage + used;
                used += length;
            }
            follower_init(&f, endpoints, (size_t)(n - 1));
            have_follower = 1;
            continue;
        }
        if (!have_follower) bad_line(raw);
        steps++;
        if (strcmp(directive, "term") == 0 && n == 3) {
            int raised = follower_note_term(&f, number(words[1], raw));
            if (raised != choice(words[2], "raised", "same", raw)) fail("term", words[2], raised ? "raised" : "same");
        } else if (strcmp(directive, "named") == 0 && n == 5) {
            const char *endpoint = strcmp(words[1], "-") == 0 ? "" : words[1];
            named_by by = choice(words[3], "itself", "another", raw) ? NAMED_BY_ITSELF : NAMED_BY_ANOTHER;
            const char *decision = decision_name(follower_named(&f, endpoint, number(words[2], raw), by));
            if (strcmp(decision, words[4]) != 0) fail("named", words[4], decision);
        } else if ((strcmp(directive, "silent") == 0 || strcmp(directive, "next") == 0) && n == 2) {
            int moved = strcmp(directive, "silent") == 0 ? follower_fell_silent(&f) : follower_try_next(&f);
            if (moved != choice(words[1], "moved", "stayed", raw)) fail(directive, words[1], moved ? "moved" : "stayed");
        } else if (strcmp(directive, "stale") == 0 && n == 3) {
            int stale = follower_is_stale(&f, number(words[1], raw));
            if (stale != choice(words[2], "yes", "no", raw)) fail("stale", words[2], stale ? "yes" : "no");
        } else if (strcmp(directive, "expect") == 0 && n == 5) {
            char followed[2 * FOLLOW_ENDPOINT_MAX];
            snprintf(followed, sizeof followed, "%s@%llu", f.followed.endpoint, (unsigned long long)f.followed.term);
            char wanted[2 * FOLLOW_ENDPOINT_MAX];
            snprintf(wanted, sizeof wanted, "%s@%llu", words[1], (unsigned long long)number(words[2], raw));
            if (strcmp(followed, wanted) != 0) fail("followed", wanted, followed);
            snprintf(got, sizeof got, "%llu", (unsigned long long)f.highest_term);
            snprintf(expected, sizeof expected, "%llu", (unsigned long long)number(words[3], raw));
            if (strcmp(got, expected) != 0) fail("highest term", expected, got);
            char left[2 * FOLLOW_ENDPOINT_MAX] = "-";
            if (f.has_left) snprintf(left, sizeof left, "%s@%llu", f.left.endpoint, (unsigned long long)f.left.term);
            if (strcmp(left, words[4]) != 0) fail("left for silence", words[4], left);
        } else {
            bad_line(raw);
        }
    }
    fclose(table);
    if (cases == 0) {
        fprintf(stderr, "leader-following.tsv: no cases\n");
        return 2;
    }
    printf("leader-following: %d cases, %d steps, %d failures\n", cases, steps, failures);
    return failures ? 1 : 0;
}
