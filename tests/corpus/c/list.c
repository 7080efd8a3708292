/* A small C file exercising the definitions the extractor knows. */
#include <stdlib.h> /* @ref import stdlib.h */
#include "list.h" /* @ref import list.h */

#define LIST_MAX 64 /* @def macro LIST_MAX */
#define LIST_EMPTY(l) ((l)->len == 0) /* @def macro LIST_EMPTY */

struct node { /* @def struct node */
    int value; /* @def field node::value */
    struct node *next; /* @def field node::next */
};

typedef struct list { /* @def struct list */
    struct node *head; /* @def field list::head */
    size_t len; /* @def field list::len */
} list_t; /* @def type list_t */

union number { /* @def union number */
    int i; /* @def field number::i */
    double d; /* @def field number::d */
};

enum color { RED, GREEN }; /* @def enum color @def enum_member color::RED @def enum_member color::GREEN */

typedef int (*compare_fn)(int, int); /* @def type compare_fn */

static int counter = 0; /* @def variable counter */

int list_push(list_t *l, int value); /* @decl function list_push */

/* Appends value to the list. */
int list_push(list_t *l, int value) /* @def function list_push */
{
    struct node *n = malloc(sizeof *n); /* @ref call malloc in list_push @ref type node in list_push */
    n->value = value;
    n->next = l->head;
    l->head = n;
    return ++l->len;
}

static struct node *
list_first(list_t *l) /* @def function list_first */
{
    return l->head;
}

typedef void *(alloc_fn)(size_t n); /* @def type alloc_fn */

static int (twice)(int x) /* @def function twice */
{
    return list_push(NULL, x) + compare(x, counter); /* @ref call list_push in twice @ref call compare in twice @ref name counter in twice */
}

void (*on_signal(int sig, void (*handler)(int)))(int) /* @def function on_signal */
{
    return handler;
}

static const struct ops list_ops = { .first = list_first }; /* @def variable list_ops @ref name list_first in list_ops */
