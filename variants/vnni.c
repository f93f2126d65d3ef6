/* vnni.c - catalog rows of the vnni family (filled in by its issue). */
#include "catalog.h"

const mp_variant mp_catalog_vnni[] = {
    {0},
};
