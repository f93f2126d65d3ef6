/* elut.c - catalog rows of the elut family (filled in by its issue). */
#include "catalog.h"

const mp_variant mp_catalog_elut[] = {
    {0},
};
