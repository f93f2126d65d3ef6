/* bitlut.c - catalog rows of the bitlut family (filled in by its issue). */
#include "catalog.h"

const mp_variant mp_catalog_bitlut[] = {
    {0},
};
