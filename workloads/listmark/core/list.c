/* listmark: a linked list whose links are 32-bit handles (pointers cast to
 * lm_u32 and back), merge-sorted by value. */
#include <stdlib.h>
#include "listmark.h"

#define NODES 64

struct node {
    lm_u32 next;            /* handle of the next node, 0 at the end */
    lm_u16 value;
};

static struct node *pool;

#define HANDLE(p) ((lm_u32)(p))
#define NODE(h)   ((struct node *)(h))

lm_u32 list_pool_handle(void)
{
    return HANDLE(pool);
}

static lm_u32 merge(lm_u32 a, lm_u32 b)
{
    lm_u32 head = 0, *tail = &head;
    while (a && b) {
        lm_u32 *from = NODE(a)->value <= NODE(b)->value ? &a : &b;
        *tail = *from;
        tail = &NODE(*from)->next;
        *from = NODE(*from)->next;
    }
    *tail = a ? a : b;
    return head;
}

static lm_u32 sort(lm_u32 list)
{
    if (!list || !NODE(list)->next)
        return list;
    lm_u32 slow = list, fast = NODE(list)->next;
    while (fast && NODE(fast)->next) {
        slow = NODE(slow)->next;
        fast = NODE(NODE(fast)->next)->next;
    }
    lm_u32 second = NODE(slow)->next;
    NODE(slow)->next = 0;
    return merge(sort(list), sort(second));
}

lm_u16 list_kernel(lm_u32 seed)
{
    if (!pool && !(pool = malloc(NODES * sizeof *pool)))
        return 0;
    lm_u32 list = 0;
    for (lm_u32 i = 0; i < NODES; i++) {
        pool[i].value = (lm_u16)(i * 7919u + seed * 31u);
        pool[i].next = list;
        list = HANDLE(&pool[i]);
    }
    lm_u16 crc = 0;
    for (lm_u32 h = sort(list); h; h = NODE(h)->next)
        crc = crc16_u16(crc, NODE(h)->value);
    return crc;
}
