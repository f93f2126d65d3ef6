/* veclut.c - catalog rows of the veclut family (filled in by its issue). */
#include "catalog.h"

const mp_variant mp_catalog_veclut[] = {
    {0},
};
