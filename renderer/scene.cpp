// Scene model helpers and the validity rules of scene-format.md (finite numbers, radius >= 0,
// 0 <= alpha <= 1, positions and radii at most kMaxCircleExtent in magnitude), shared by the file
// readers, the generators and library callers.
#include "renderer/scene.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "renderer/errors.h"

namespace tilescan {

void Scene::reserve(std::size_t n) {
    for (auto* field : {&x, &y, &z, &radius, &r, &g, &b, &a}) field->reserve(n);
}

void Scene::resize(std::size_t n) {
    for (auto* field : {&x, &y, &z, &radius, &r, &g, &b, &a}) field->resize(n);
}

void Scene::push_back(const Circle& c) {
    x.push_back(c.x);
    y.push_back(c.y);
    z.push_back(c.z);
    radius.push_back(c.radius);
    r.push_back(c.r);
    g.push_back(c.g);
    b.push_back(c.b);
    a.push_back(c.a);
}

Circle Scene::circle(std::size_t i) const { return {x[i], y[i], z[i], radius[i], r[i], g[i], b[i], a[i]}; }

void Scene::set_circle(std::size_t i, const Circle& c) {
    x[i] = c.x;
    y[i] = c.y;
    z[i] = c.z;
    radius[i] = c.radius;
    r[i] = c.r;
    g[i] = c.g;
    b[i] = c.b;
    a[i] = c.a;
}

namespace {

bool same_bits(const std::vector<float>& lhs, const std::vector<float>& rhs) {
    return lhs.size() == rhs.size() &&
           (lhs.empty() || std::memcmp(lhs.data(), rhs.data(), lhs.size() * sizeof(float)) == 0);
}

}  // namespace

bool operator==(const Scene& lhs, const Scene& rhs) {
    return lhs.shading == rhs.shading && lhs.background.kind == rhs.background.kind &&
           std::memcmp(&lhs.background.r, &rhs.background.r, 3 * sizeof(float)) == 0 &&
           lhs.default_width == rhs.default_width && lhs.default_height == rhs.default_height &&
           same_bits(lhs.x, rhs.x) && same_bits(lhs.y, rhs.y) && same_bits(lhs.z, rhs.z) &&
           same_bits(lhs.radius, rhs.radius) && same_bits(lhs.r, rhs.r) && same_bits(lhs.g, rhs.g) &&
           same_bits(lhs.b, rhs.b) && same_bits(lhs.a, rhs.a);
}

namespace {

// A float as `std::ostream << value` prints it (%g): to_chars is defined to print what printf does in
// the "C" locale and touches no locale facet, which matters inside a Python process, where another
// extension's copy of the facets may be the one an ostream finds (a crash, not just a wrong text).
std::string float_text(float value) {
    char text[16];  // the longest %g of a float: "-1.17549e-38"
    return std::string(text, std::to_chars(text, text + sizeof text, value, std::chars_format::general, 6).ptr);
}

}  // namespace

std::string circle_problem(const Circle& c) {
    const struct {
        const char* name;
        float value;
    } fields[] = {{"x", c.x}, {"y", c.y}, {"z", c.z}, {"radius", c.radius},
                  {"r", c.r}, {"g", c.g}, {"b", c.b}, {"a", c.a}};
    for (const auto& field : fields) {
        if (std::isnan(field.value)) return std::string("NaN is not allowed (field ") + field.name + ")";
        if (std::isinf(field.value)) return std::string("infinity is not allowed (field ") + field.name + ")";
    }
    const bool within_extent =
        std::fabs(c.x) <= kMaxCircleExtent && std::fabs(c.y) <= kMaxCircleExtent && c.radius <= kMaxCircleExtent;
    if (c.radius >= 0.0f && within_extent && c.a >= 0.0f && c.a <= 1.0f) return std::string();
    if (c.radius < 0.0f) return "radius is negative (" + float_text(c.radius) + ")";
    if (!within_extent) {
        const char* name = "radius";
        float value = c.radius;
        if (std::fabs(c.x) > kMaxCircleExtent) {
            name = "x";
            value = c.x;
        } else if (std::fabs(c.y) > kMaxCircleExtent) {
            name = "y";
            value = c.y;
        }
        return std::string(name) + " " + float_text(value) + " is too large (positions and radii are at most " +
               float_text(kMaxCircleExtent) + " in magnitude)";
    }
    return "alpha " + float_text(c.a) + " is outside [0, 1]";
}

std::string invalid_circle_message(const std::string& where, std::size_t index, const Circle& c) {
    return where + ": circle " + std::to_string(index) + ": " + circle_problem(c);
}

void validate_scene(const Scene& scene, const std::string& where) {
    for (std::size_t i = 0; i < scene.size(); ++i) {
        if (circle_values_valid(scene.x[i], scene.y[i], scene.z[i], scene.radius[i], scene.r[i], scene.g[i], scene.b[i],
                                scene.a[i]))
            continue;
        const Circle c = scene.circle(i);
        if (!circle_problem(c).empty()) throw InputError(invalid_circle_message(where, i, c));
    }
}

}  // namespace tilescan
