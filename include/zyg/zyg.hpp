/* zyg.hpp: zyg's C++ API (README.md, "The C++ API").
 *
 *     double f(double x, const double *p, int n);
 *     auto [dx] = zyg::autodiff<zyg::Reverse>(f, zyg::Active(x), zyg::Duplicated(p, dp), zyg::Const(n));
 *     double dy = zyg::autodiff<zyg::Forward>(f, zyg::Duplicated(x, 1.0), zyg::Const(p), zyg::Const(n));
 *
 * Every call expands (through always-inline functions only) into one call of a function
 * template whose mangled name contains `__zyg_autodiff` or `__zyg_fwddiff`, with zyg.h's
 * markers before its arguments: the request zyg fills in, exactly as the C API's
 * `__zyg_autodiff(f, zyg_out, x, zyg_dup, p, dp, zyg_const, n)`. Functions are requested
 * directly; lambdas and function objects through a trampoline, `detail::invoke`, that calls
 * the object given as a `const` argument. The gradients come back as a struct of the
 * `Active` arguments' types, returned as a std::tuple.
 *
 * At -O0 clang inlines the always-inline functions but leaves their arguments in stack
 * slots; zyg promotes the slots of the functions calling these entry points before it reads
 * their requests (zyg-driver's `callsite::promote`), so every level works.
 *
 * Requires C++17. Arguments are numbers, enums, pointers, or references (`Const<const T &>`,
 * `Duplicated<T &>`, passed as pointers); a class passed by value is refused at compile
 * time: its fields would reach zyg as several arguments.
 */
#ifndef ZYG_ZYG_HPP
#define ZYG_ZYG_HPP

#if __cplusplus < 201703L
#error "zyg/zyg.hpp needs C++17 or later (clang++ -std=c++17)"
#endif

#include "zyg.h"

#include <tuple>
#include <type_traits>
#include <utility>

/* The entry points, as C++ templates: each instantiation is a request whose mangled name
 * (`_ZN3zyg6detail14__zyg_autodiffI...`) contains the C name zyg looks for. Only numbers
 * and `void *` instantiate them, so a local type never needs a definition elsewhere. */
namespace zyg {
namespace detail {
template <class R, class... A> R __zyg_autodiff(void *, A...);
template <class R, class... A> R __zyg_fwddiff(void *, A...);
} // namespace detail
} // namespace zyg

#define ZYG_INLINE __attribute__((always_inline)) inline

namespace zyg {

/* Modes. */
struct Reverse {};
struct ReverseWithPrimal {};
struct Forward {};

/* Activities. `Active`: a float whose gradient is returned. `Const`: no derivative.
 * `Duplicated(p, dp)`: a pointer and its shadow, which accumulates (reverse) or holds the
 * tangents (forward); in forward mode also a float and its tangent. `DuplicatedNoNeed`: the
 * same (zyg computes the pointer's memory either way). The `T &` forms take references
 * and pass pointers, for reference parameters. */
template <class T> struct Active {
    T value;
    ZYG_INLINE Active(T v) : value(v) {}
};
template <class T> struct Const {
    T value;
    ZYG_INLINE Const(T v) : value(v) {}
};
template <class T> struct Const<T &> {
    T *value;
    ZYG_INLINE Const(T &v) : value(&v) {}
};
template <class T> struct Duplicated {
    T value, shadow;
    ZYG_INLINE Duplicated(T v, T s) : value(v), shadow(s) {}
};
template <class T> struct Duplicated<T &> {
    T *value, *shadow;
    ZYG_INLINE Duplicated(T &v, T &s) : value(&v), shadow(&s) {}
};
template <class T> struct DuplicatedNoNeed {
    T value, shadow;
    ZYG_INLINE DuplicatedNoNeed(T v, T s) : value(v), shadow(s) {}
};
template <class T> struct DuplicatedNoNeed<T &> {
    T *value, *shadow;
    ZYG_INLINE DuplicatedNoNeed(T &v, T &s) : value(&v), shadow(&s) {}
};
/* `Duplicated(x, dx)` with a `const double *` and its `double *` shadow. */
template <class T, class S> Duplicated(T, S) -> Duplicated<T>;
template <class T, class S> DuplicatedNoNeed(T, S) -> DuplicatedNoNeed<T>;

namespace detail {

template <class... T> struct types {};

/* What an argument passes after its marker, and what a callable's parameter for it is. */
template <class W> struct activity;
template <class T> struct activity<Active<T>> {
    static constexpr int kind = 0; /* 0 active, 1 const, 2 dup, 3 dupnoneed */
    static constexpr bool by_reference = false;
    using parameter = T;
};
template <class T> struct activity<Const<T>> {
    static constexpr int kind = 1;
    static constexpr bool by_reference = std::is_reference_v<T>;
    using parameter = T;
};
template <class T> struct activity<Duplicated<T>> {
    static constexpr int kind = 2;
    static constexpr bool by_reference = std::is_reference_v<T>;
    using parameter = T;
};
template <class T> struct activity<DuplicatedNoNeed<T>> {
    static constexpr int kind = 3;
    static constexpr bool by_reference = std::is_reference_v<T>;
    using parameter = T;
};
template <class W> using parameter_t = typename activity<std::decay_t<W>>::parameter;

template <class W> struct is_activity : std::false_type {};
template <class T> struct is_activity<Active<T>> : std::true_type {};
template <class T> struct is_activity<Const<T>> : std::true_type {};
template <class T> struct is_activity<Duplicated<T>> : std::true_type {};
template <class T> struct is_activity<DuplicatedNoNeed<T>> : std::true_type {};

/* Markers and flags as types: `pass` turns each into a read of zyg.h's global right at the
 * request, where zyg looks for it. Empty classes are no arguments at all in the C++ ABI. */
struct out_tag {};
struct const_tag {};
struct dup_tag {};
struct dupnoneed_tag {};
struct const_return_tag {};
struct active_return_tag {};
ZYG_INLINE int pass(out_tag) { return zyg_out; }
ZYG_INLINE int pass(const_tag) { return zyg_const; }
ZYG_INLINE int pass(dup_tag) { return zyg_dup; }
ZYG_INLINE int pass(dupnoneed_tag) { return zyg_dupnoneed; }
ZYG_INLINE int pass(const_return_tag) { return enzyme_const_return; }
ZYG_INLINE int pass(active_return_tag) { return enzyme_active_return; }
template <class T> ZYG_INLINE T pass(T v) { return v; }

/* A value as the request passes it for a parameter of type P: numbers as P, enums as their
 * integers, pointers (and references, which are pointers) as `void *`. */
template <class P> struct lowered {
    static_assert(std::is_arithmetic_v<P> || std::is_enum_v<P> || std::is_pointer_v<P> ||
                      std::is_null_pointer_v<P>,
                  "zyg: pass a class or array through a pointer or a reference (zyg::Const<const T &>, "
                  "zyg::Duplicated<T &>): a class by value would reach zyg as several arguments");
    using type = std::conditional_t<std::is_pointer_v<P> || std::is_null_pointer_v<P>, void *, P>;
};
template <class E, bool = std::is_enum_v<E>> struct number {
    using type = E;
};
template <class E> struct number<E, true> {
    using type = std::underlying_type_t<E>;
};
template <class P> using lowered_t = typename number<typename lowered<std::remove_cv_t<P>>::type>::type;

template <class P, class V> ZYG_INLINE lowered_t<P> lower(V v) {
    using Q = std::remove_cv_t<P>;
    if constexpr (std::is_pointer_v<Q>)
        return (void *)static_cast<Q>(v);
    else if constexpr (std::is_null_pointer_v<Q>)
        return nullptr;
    else
        return static_cast<lowered_t<P>>(static_cast<Q>(v));
}

/* A reference travels as its address; other parameters as `lowered_t`. */
template <class P, bool Reference> struct lowered_value_of {
    using type = lowered_t<P>;
};
template <class P> struct lowered_value_of<P, true> {
    using type = void *;
};

/* What one argument `W` for parameter `P` becomes in the request: its marker, its value
 * and, for `Duplicated`, its shadow. References travel as pointers. */
template <bool ForwardMode, class P, class W> struct argument {
    using A = activity<W>;
    static constexpr bool to_reference = std::is_reference_v<P>;
    using Value = std::remove_reference_t<P>;
    static_assert(!(A::kind == 0 && ForwardMode),
                  "zyg: forward mode has no zyg::Active arguments: give a float its tangent, "
                  "zyg::Duplicated(x, dx), or make it zyg::Const(x)");
    static_assert(!(A::kind == 0 && !std::is_floating_point_v<P>),
                  "zyg: zyg::Active is for a floating-point parameter (by value)");
    static_assert(!(A::kind >= 2 && !ForwardMode && !to_reference && !std::is_pointer_v<P>),
                  "zyg: reverse mode's zyg::Duplicated is for a pointer or reference parameter: a float "
                  "passed by value is zyg::Active");
    static_assert(!(A::kind >= 2 && ForwardMode && !to_reference && !std::is_pointer_v<P> &&
                    !std::is_floating_point_v<P>),
                  "zyg: forward mode's zyg::Duplicated is for a float, a pointer or a reference parameter");
    static_assert(!(to_reference && A::kind != 1 && !A::by_reference),
                  "zyg: a reference parameter takes zyg::Duplicated<T &>(x, dx) (or zyg::Const), which "
                  "pass its address");
    static_assert(!(A::kind >= 2 && A::by_reference && !to_reference),
                  "zyg: zyg::Duplicated<T &> is for a reference parameter; pass a pointer with "
                  "zyg::Duplicated(p, dp)");
    using lowered_value = typename lowered_value_of<P, to_reference>::type;

    template <class V> ZYG_INLINE static lowered_value value(V v) {
        if constexpr (to_reference) {
            if constexpr (A::by_reference)
                return (void *)static_cast<Value *>(v);
            else
                /* `Const(x)` for a `const T &` parameter: the address of the wrapper's copy,
                 * alive until the request returns. */
                return (void *)v;
        } else if constexpr (A::by_reference) {
            return lower<P>(*v); /* `Const<const T &>` for a by-value parameter: a copy */
        } else {
            return lower<P>(v);
        }
    }
};

/* Builds the request's argument list one activity at a time, each step an always-inline
 * function, and makes the call (`Call::call`) with the markers read where it is made. */
template <class Call, class Ps, class... Done> struct expand;
template <class Call, class... Done> struct expand<Call, types<>, Done...> {
    ZYG_INLINE static typename Call::result go(Done... done) { return Call::call(pass(done)...); }
};
template <class Call, class P, class... Ps, class... Done> struct expand<Call, types<P, Ps...>, Done...> {
    template <class W> using arg = argument<Call::forward, P, W>;

    template <class T, class... Rest>
    ZYG_INLINE static typename Call::result go(Done... done, Active<T> a, Rest... rest) {
        using V = typename arg<Active<T>>::lowered_value;
        return expand<Call, types<Ps...>, Done..., out_tag, V>::go(done..., out_tag{},
                                                                   arg<Active<T>>::value(a.value), rest...);
    }
    template <class T, class... Rest>
    ZYG_INLINE static typename Call::result go(Done... done, Const<T> a, Rest... rest) {
        using V = typename arg<Const<T>>::lowered_value;
        return expand<Call, types<Ps...>, Done..., const_tag, V>::go(done..., const_tag{}, value_of(a), rest...);
    }
    template <class T, class... Rest>
    ZYG_INLINE static typename Call::result go(Done... done, Duplicated<T> a, Rest... rest) {
        using V = typename arg<Duplicated<T>>::lowered_value;
        return expand<Call, types<Ps...>, Done..., dup_tag, V, V>::go(
            done..., dup_tag{}, arg<Duplicated<T>>::value(a.value), arg<Duplicated<T>>::value(a.shadow), rest...);
    }
    template <class T, class... Rest>
    ZYG_INLINE static typename Call::result go(Done... done, DuplicatedNoNeed<T> a, Rest... rest) {
        using V = typename arg<DuplicatedNoNeed<T>>::lowered_value;
        return expand<Call, types<Ps...>, Done..., dupnoneed_tag, V, V>::go(
            done..., dupnoneed_tag{}, arg<DuplicatedNoNeed<T>>::value(a.value),
            arg<DuplicatedNoNeed<T>>::value(a.shadow), rest...);
    }

  private:
    /* A `Const` for a reference parameter passes the address of its value. */
    template <class T> ZYG_INLINE static typename arg<Const<T>>::lowered_value value_of(Const<T> &a) {
        if constexpr (std::is_reference_v<P> && !std::is_reference_v<T>)
            return arg<Const<T>>::value(&a.value);
        else
            return arg<Const<T>>::value(a.value);
    }
};

/* The gradients of the `Active` arguments, in order: a plain struct, which the C ABI returns
 * in registers or memory as zyg's C requests declare theirs (one scalar per field). */
template <class... T> struct gradients;
template <class T> struct gradients<T> {
    T first;
};
template <class T, class U, class... Rest> struct gradients<T, U, Rest...> {
    T first;
    gradients<U, Rest...> rest;
};
template <class... T> ZYG_INLINE std::tuple<T...> to_tuple(const gradients<T...> &g) {
    if constexpr (sizeof...(T) == 1)
        return std::tuple<T...>(g.first);
    else
        return std::tuple_cat(std::tuple<decltype(g.first)>(g.first), to_tuple(g.rest));
}

/* The types of the `Active` arguments among `W...`. */
template <class Acc, class... W> struct active_types;
template <class... T> struct active_types<types<T...>> {
    using type = types<T...>;
};
template <class... T, class W, class... Rest> struct active_types<types<T...>, W, Rest...> {
    using type = typename active_types<types<T...>, Rest...>::type;
};
template <class... T, class U, class... Rest> struct active_types<types<T...>, Active<U>, Rest...> {
    using type = typename active_types<types<T..., U>, Rest...>::type;
};
/* What the gradient request returns: nothing, or `gradients<T...>`. */
template <class L> struct gradient_result;
template <> struct gradient_result<types<>> {
    using type = void;
    using tuple = std::tuple<>;
};
template <class... T> struct gradient_result<types<T...>> {
    using type = gradients<T...>;
    using tuple = std::tuple<T...>;
};

/* The calls of the two entry points. The function comes first among the arguments. */
template <class R> struct reverse_call {
    using result = R;
    static constexpr bool forward = false;
    template <class... A> ZYG_INLINE static R call(void *f, A... a) { return __zyg_autodiff<R>(f, a...); }
};
template <class R> struct forward_call {
    using result = R;
    static constexpr bool forward = true;
    template <class... A> ZYG_INLINE static R call(void *f, A... a) { return __zyg_fwddiff<R>(f, a...); }
};

/* The trampolines zyg differentiates for a callable object: the object comes as a `const`
 * pointer, so zyg differentiates its operator() with the object's memory read as constants;
 * `with_primal` also stores the result into `*primal`, which the request passes
 * `Duplicated` with a zeroed shadow (so the store adds nothing to any gradient). */
template <class F, class R, class... A> R invoke(void *f, A... a) { return (*static_cast<F *>(f))(a...); }
template <class F, class R, class... A> R invoke_with_primal(void *f, R *primal, A... a) {
    R r = (*static_cast<F *>(f))(a...);
    *primal = r;
    return r;
}
/* The same for a function given by its address, passed `const` (a callback zyg
 * differentiates through). */
template <class F, class R, class... A> R call_with_primal(F f, R *primal, A... a) {
    R r = f(a...);
    *primal = r;
    return r;
}

template <class F, class R, class... P> ZYG_INLINE auto call_with_primal_address(types<P...>) {
    return &call_with_primal<F, R, P...>;
}

template <class F> struct function_traits;
template <class R, class... P> struct function_traits<R(P...)> {
    using result = R;
    using parameters = types<P...>;
    static constexpr std::size_t arity = sizeof...(P);
};
template <class R, class... P> struct function_traits<R(P...) noexcept> : function_traits<R(P...)> {};

template <class F> constexpr bool is_function_v = std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>;

/* The activity given for the result, or the default: `Active` for a float, `Const` otherwise
 * (the result gets no seed; only `Duplicated` outputs count). */
template <class Mode, class R> struct default_return {
    using type = std::conditional_t<std::is_floating_point_v<R>, Active<R>, Const<R>>;
};
template <class R> struct default_return<Forward, R> {
    using type = DuplicatedNoNeed<R>;
};
template <class Mode> struct default_return<Mode, void> {
    using type = Const<void *>;
};
template <> struct default_return<Forward, void> {
    using type = Const<void *>;
};

struct no_return_activity {};
/* What a request declared `void` gives back. */
struct nothing {};

/* One request. `Mode` and the result's activity `Ret` decide what it returns:
 *   Reverse: std::tuple of the gradients;
 *   ReverseWithPrimal: std::tuple of the result, then the gradients;
 *   Forward: the tangent of the result (Ret = DuplicatedNoNeed<R>), std::tuple of the result
 *   and its tangent (Duplicated<R>), or the result (Const<R>).
 * `Callable` is a function (pointer) or an object; `Ps` the parameters it is called with. */
template <class Mode, class Ret, class R, class... W> struct request {
    static constexpr bool forward = std::is_same_v<Mode, Forward>;
    static constexpr bool primal_wanted =
        std::is_same_v<Mode, ReverseWithPrimal> ||
        (forward && (std::is_same_v<Ret, Duplicated<R>> || std::is_same_v<Ret, Const<R>>));
    static constexpr bool tangent_wanted = forward && !std::is_same_v<Ret, Const<R>>;
    static constexpr bool float_result = std::is_floating_point_v<R>;
    static_assert(!(std::is_same_v<Mode, ReverseWithPrimal> && std::is_void_v<R>),
                  "zyg: zyg::ReverseWithPrimal asks for the result of a function that returns void; use "
                  "zyg::Reverse");
    static_assert(!(forward && !std::is_void_v<R> && !std::is_same_v<Ret, Duplicated<R>> &&
                    !std::is_same_v<Ret, DuplicatedNoNeed<R>> && !std::is_same_v<Ret, Const<R>>),
                  "zyg: forward mode's result is zyg::DuplicatedNoNeed<R> (its tangent), zyg::Duplicated<R> "
                  "(result and tangent) or zyg::Const<R> (the result), R the function's result type");
    static_assert(!(!forward && !std::is_void_v<R> && !std::is_same_v<Ret, Active<R>> &&
                    !std::is_same_v<Ret, Const<R>>),
                  "zyg: reverse mode's result is zyg::Active<R> (seeded with 1) or zyg::Const<R> (no seed), R "
                  "the function's result type");
    static_assert(!(forward && !std::is_void_v<R> && !std::is_floating_point_v<R> && !std::is_class_v<R>),
                  "zyg: forward mode differentiates a function returning a float, a struct of floats or void");

    using grads = typename gradient_result<typename active_types<types<>, W...>::type>::type;
    using grads_tuple = typename gradient_result<typename active_types<types<>, W...>::type>::tuple;
    /* What the request returns: the gradients, or the result's tangent. */
    using entry_result = std::conditional_t<forward, std::conditional_t<std::is_void_v<R>, void, R>, grads>;
    using call = std::conditional_t<forward, forward_call<entry_result>, reverse_call<entry_result>>;
    /* Flags of the result's activity (reverse mode): a float result is seeded (no flag); a
     * struct result needs `enzyme_active_return` (every float seeded) or nothing seeded. */
    static constexpr bool active_struct = !forward && std::is_same_v<Ret, Active<R>> && !float_result;
    static constexpr bool const_return = !forward && std::is_same_v<Ret, Const<R>> && !std::is_void_v<R>;

    /* Makes the call: `fn` is the function zyg differentiates; `front...` the arguments
     * before the user's (a trampoline's object and primal slot); `Ps` the parameter types. */
    template <class Ps, class... Front>
    ZYG_INLINE static auto make(void *fn, types<Front...>, Front... front, W... w) {
        if constexpr (std::is_void_v<entry_result>) {
            call_with_flags<Ps, Front...>(fn, front..., w...);
            return nothing{};
        } else {
            return call_with_flags<Ps, Front...>(fn, front..., w...);
        }
    }
    template <class Ps, class... Front> ZYG_INLINE static entry_result call_with_flags(void *fn, Front... front, W... w) {
        if constexpr (active_struct)
            return expand<call, Ps, void *, active_return_tag, Front...>::go(fn, active_return_tag{}, front...,
                                                                               w...);
        else if constexpr (const_return)
            return expand<call, Ps, void *, const_return_tag, Front...>::go(fn, const_return_tag{}, front..., w...);
        else
            return expand<call, Ps, void *, Front...>::go(fn, front..., w...);
    }

    /* The user's result from the request's and the primal's. */
    template <class G> ZYG_INLINE static auto deliver(G &&g, const std::remove_cv_t<R> *primal) {
        if constexpr (forward) {
            if constexpr (std::is_void_v<R>)
                return;
            else if constexpr (!primal_wanted)
                return g;
            else if constexpr (!tangent_wanted)
                return *primal;
            else
                return std::tuple<R, R>(*primal, g);
        } else if constexpr (primal_wanted) {
            return std::tuple_cat(std::tuple<R>(*primal), reverse_tuple(std::forward<G>(g)));
        } else {
            return reverse_tuple(std::forward<G>(g));
        }
    }
    template <class G> ZYG_INLINE static grads_tuple reverse_tuple(G &&g) {
        if constexpr (std::is_same_v<std::decay_t<G>, nothing>)
            return {};
        else
            return to_tuple(g);
    }
};

template <class W> struct is_duplicated : std::false_type {};
template <class T> struct is_duplicated<Duplicated<T>> : std::true_type {};
template <class T> struct is_duplicated<DuplicatedNoNeed<T>> : std::true_type {};
/* A Duplicated pointer or reference: memory a captured pointer could alias (forward mode's
 * Duplicated floats are values). */
template <class W> struct duplicates_memory
    : std::bool_constant<is_duplicated<W>::value &&
                         (activity<W>::by_reference || std::is_pointer_v<typename activity<W>::parameter>)> {};
template <class T> struct duplicates_memory<Active<T>> : std::false_type {};
template <class T> struct duplicates_memory<Const<T>> : std::false_type {};
template <class F> struct is_const_object : std::false_type {};
template <class T> struct is_const_object<Const<T>> : std::bool_constant<std::is_class_v<T>> {};

template <class Mode, class Ret, class Obj, class... W> ZYG_INLINE auto run_object(Obj &f, W... w);

template <class Mode, class Ret, class F, class... W> ZYG_INLINE auto run(F &&f, W... w) {
    static_assert(std::is_same_v<Mode, Reverse> || std::is_same_v<Mode, ReverseWithPrimal> ||
                      std::is_same_v<Mode, Forward>,
                  "zyg: the mode is zyg::Reverse, zyg::ReverseWithPrimal or zyg::Forward");
    static_assert((is_activity<W>::value && ...),
                  "zyg: wrap each argument in zyg::Active, zyg::Const, zyg::Duplicated or zyg::DuplicatedNoNeed");
    if constexpr (is_function_v<F>) {
        using Fn = std::remove_pointer_t<std::decay_t<F>>;
        using T = function_traits<Fn>;
        using R = typename T::result;
        using Q = request<Mode, std::conditional_t<std::is_same_v<Ret, no_return_activity>,
                                                   typename default_return<Mode, R>::type, Ret>,
                          R, W...>;
        static_assert(T::arity == sizeof...(W), "zyg: give one zyg::Active, zyg::Const, zyg::Duplicated or "
                                                "zyg::DuplicatedNoNeed for each parameter of the function");
        auto *fp = static_cast<Fn *>(f);
        if constexpr (!Q::primal_wanted) {
            return Q::deliver(Q::template make<typename T::parameters>((void *)fp, types<>{}, w...), nullptr);
        } else {
            /* The result comes back through a `Duplicated` slot of a trampoline that calls the
             * function (passed `const`, a callback). */
            std::remove_cv_t<R> primal{}, scratch{};
            using Ps = typename T::parameters;
            auto *tramp = call_with_primal_address<Fn *, std::remove_cv_t<R>>(Ps{});
            auto g = Q::template make<Ps>((void *)tramp, types<const_tag, void *, dup_tag, void *, void *>{},
                                          const_tag{}, (void *)fp, dup_tag{}, (void *)&primal, (void *)&scratch,
                                          w...);
            return Q::deliver(g, &primal);
        }
    } else if constexpr (is_const_object<std::decay_t<F>>::value) {
        /* zyg::Const(f): the caller promises that what f reaches is constant. */
        return run_object<Mode, Ret>(f.value, w...);
    } else {
        using Obj = std::remove_reference_t<F>;
        static_assert(std::is_empty_v<Obj> || !(duplicates_memory<W>::value || ...),
                      "zyg: a lambda with captures (or a function object with state) is read as a constant, "
                      "but what it captures by reference may be the memory a zyg::Duplicated argument "
                      "differentiates, whose derivatives would then be lost. Pass that memory as an argument "
                      "instead of capturing it, and wrap the callable in zyg::Const(f) to promise that what it "
                      "captures is constant");
        return run_object<Mode, Ret>(f, w...);
    }
}

/* A lambda or function object, called through a trampoline with the object `const`. */
template <class Mode, class Ret, class Obj, class... W> ZYG_INLINE auto run_object(Obj &f, W... w) {
    using Ps = types<parameter_t<W>...>;
    using R = std::decay_t<decltype(std::declval<Obj &>()(std::declval<parameter_t<W>>()...))>;
    using Q = request<Mode, std::conditional_t<std::is_same_v<Ret, no_return_activity>,
                                               typename default_return<Mode, R>::type, Ret>,
                      R, W...>;
    void *object = const_cast<void *>(static_cast<const volatile void *>(&f));
    if constexpr (!Q::primal_wanted) {
        auto *tramp = &invoke<Obj, R, parameter_t<W>...>;
        return Q::deliver(Q::template make<Ps>((void *)tramp, types<const_tag, void *>{}, const_tag{}, object, w...),
                          nullptr);
    } else {
        std::remove_cv_t<R> primal{}, scratch{};
        auto *tramp = &invoke_with_primal<Obj, R, parameter_t<W>...>;
        auto g = Q::template make<Ps>((void *)tramp, types<const_tag, void *, dup_tag, void *, void *>{}, const_tag{},
                                      object, dup_tag{}, (void *)&primal, (void *)&scratch, w...);
        return Q::deliver(g, &primal);
    }
}

} // namespace detail

/* Frees the tape memory the calling thread keeps for its next gradients (zyg.h's
 * `__zyg_release_tape_cache`): always inlined, so that it releases the caches of the file
 * it is called in. */
ZYG_INLINE void release_tape_cache() { __zyg_release_tape_cache(); }

/* zyg::autodiff<Mode>(f, activities...) and zyg::autodiff<Mode, ResultActivity>(f, ...):
 * `f` a function, a function template's instance, a lambda or a function object. */
template <class Mode, class F, class... W> ZYG_INLINE auto autodiff(F &&f, W... w) {
    return detail::run<Mode, detail::no_return_activity>(std::forward<F>(f), w...);
}
template <class Mode, class Ret, class F, class... W,
          std::enable_if_t<detail::is_activity<Ret>::value, int> = 0>
ZYG_INLINE auto autodiff(F &&f, W... w) {
    return detail::run<Mode, Ret>(std::forward<F>(f), w...);
}

} // namespace zyg

#endif
