// strtof_l with a "C" locale made once (glibc; POSIX 2008 locale objects).
#include "renderer/c_numbers.h"

#include <locale.h>
#include <stdlib.h>

#include <stdexcept>

namespace tilescan {

namespace {

// The "C" locale's numbers, made at first use and kept for the life of the process.
locale_t c_numeric_locale() {
    static const locale_t locale = [] {
        const locale_t made = newlocale(LC_NUMERIC_MASK, "C", static_cast<locale_t>(0));
        if (made == static_cast<locale_t>(0)) throw std::runtime_error("cannot make the C locale for reading numbers");
        return made;
    }();
    return locale;
}

}  // namespace

float strtof_c(const char* text, char** end) { return strtof_l(text, end, c_numeric_locale()); }

}  // namespace tilescan
