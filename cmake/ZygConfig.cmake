# ZygConfig.cmake: zyg's CMake package. install.sh copies it (unchanged) to
# <prefix>/lib/cmake/Zyg/; its source is cmake/ZygConfig.cmake in zyg's repository.
#
#   find_package(Zyg 0.1 REQUIRED)       # -DCMAKE_PREFIX_PATH=<prefix> unless zyg is in /usr/local
#   add_library(model model.cpp)
#   zyg_target_gradients(model)          # fills model.cpp's __enzyme_autodiff / zyg::autodiff requests
#   add_executable(sim main.c physics.c)
#   zyg_target_gradients(sim LTO)        # requests may differentiate functions of the other files
#
# What it gives:
#   Zyg::zyg            imported executable: zyg's command line (zyg grad, zyg opt, ...)
#   Zyg::headers        INTERFACE target: <prefix>/include, for zyg/zyg.h, zyg/zyg.hpp, enzyme/enzyme
#   ZYG_EXECUTABLE      <prefix>/bin/zyg
#   ZYG_PLUGIN          <prefix>/lib/libzyg_plugin.so, the pass plugin clang-22 loads
#   ZYG_INCLUDE_DIR     <prefix>/include
#   Zyg_VERSION         zyg's version (ZygConfigVersion.cmake)
#
#   zyg_target_gradients(<target> [LTO]
#                        [EXPORT <function>... [ARGS <kinds>...] [NAME <name>...]
#                         [FORWARD] [WIDTH <n>] [HEADER <file.h>]])
#
# Adds `-fpass-plugin=${ZYG_PLUGIN}` to the target's C and C++ compile options and links
# Zyg::headers (for the target and for what links it); each file's requests are filled in
# as clang compiles it, at every optimisation level. The project's C and C++ compilers
# (those it enables) must be clang 22, which the plugin is built for: configure with
# -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 (anything else is a
# FATAL_ERROR saying so). Call it once per target. Requests are Enzyme's __enzyme_autodiff
# and zyg.h's __zyg_autodiff; zyg.hpp's zyg::autodiff is not filled in by the plugin yet.
#
# LTO: a request whose differentiated code calls functions defined in other files of the
# target needs the whole program, which full LTO gives: `-flto` is added to the compile and
# link options, and `-fuse-ld=lld -Wl,--load-pass-plugin=${ZYG_PLUGIN}` to the link, where
# the requests are filled in (lld-22 must be installed). Use it on executables and shared
# libraries, and give it to every target whose files hold requests or the functions they
# differentiate. CMake's INTERPROCEDURAL_OPTIMIZATION is ThinLTO with clang (-flto=thin),
# where each file is optimised alone: zyg refuses requests there, and
# zyg_target_gradients refuses a target that has it on.
#
# EXPORT exports gradients as external functions, as `zyg grad --fn` does (README, "The
# command line"): the file that defines the function exports `<function>_grad`, or NAME.
# ARGS gives the argument kinds of each function (`out,const`, `dup,const`, ...), NAME
# each export's name; both are lists with one entry per function, in the same order (or
# left out). FORWARD exports forward mode's tangent functions (`<function>_fwd`), WIDTH
# vector mode's, HEADER writes the C prototypes to a file (relative to the build
# directory). Quote a C++ name with spaces: EXPORT "ns::loss(double const*, int)" (README,
# "The command line", says how C++ names are written). These become `-mllvm -zyg-fn=...`
# options of every C and C++ compile of the target (a file without the function ignores
# them); other `-mllvm -zyg-*` options (e.g. `-zyg-verbose=1`) may be added with
# `target_compile_options(<target> PRIVATE "SHELL:-mllvm -zyg-verbose=1")`. With LTO, the
# compile of the file defining an exported function records the export in its bitcode and
# the link makes it; HEADER is refused there (the gradients exist only at the link).

if(CMAKE_VERSION VERSION_LESS 3.15)
  # target_link_options, SHELL: option groups, $<COMPILE_LANGUAGE:C,CXX>.
  set(Zyg_FOUND FALSE)
  set(Zyg_NOT_FOUND_MESSAGE "zyg's CMake package needs CMake 3.15 or later (this is ${CMAKE_VERSION})")
  return()
endif()

# <prefix>/lib/cmake/Zyg/ZygConfig.cmake: the prefix is three levels up, so an installed
# tree can be moved.
get_filename_component(_zyg_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(ZYG_EXECUTABLE "${_zyg_prefix}/bin/zyg")
set(ZYG_PLUGIN "${_zyg_prefix}/lib/libzyg_plugin.so")
set(ZYG_INCLUDE_DIR "${_zyg_prefix}/include")
unset(_zyg_prefix)

foreach(_zyg_file IN ITEMS "${ZYG_EXECUTABLE}" "${ZYG_PLUGIN}" "${ZYG_INCLUDE_DIR}/zyg/zyg.h")
  if(NOT EXISTS "${_zyg_file}")
    set(Zyg_FOUND FALSE)
    set(Zyg_NOT_FOUND_MESSAGE
        "zyg's installation at ${CMAKE_CURRENT_LIST_DIR} is incomplete: ${_zyg_file} is missing; reinstall with zyg's install.sh")
    unset(_zyg_file)
    return()
  endif()
endforeach()
unset(_zyg_file)

if(NOT TARGET Zyg::zyg)
  add_executable(Zyg::zyg IMPORTED)
  set_target_properties(Zyg::zyg PROPERTIES IMPORTED_LOCATION "${ZYG_EXECUTABLE}")
endif()
if(NOT TARGET Zyg::headers)
  add_library(Zyg::headers INTERFACE IMPORTED)
  set_target_properties(Zyg::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${ZYG_INCLUDE_DIR}")
endif()

# The plugin is built against LLVM 22's C++ API: another clang cannot load it.
function(_zyg_check_compilers target)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(checked FALSE)
  foreach(lang IN ITEMS C CXX)
    if(NOT lang IN_LIST languages)
      continue()
    endif()
    set(checked TRUE)
    set(id "${CMAKE_${lang}_COMPILER_ID}")
    set(version "${CMAKE_${lang}_COMPILER_VERSION}")
    if(NOT id STREQUAL "Clang" OR version VERSION_LESS 22 OR NOT version VERSION_LESS 23)
      message(FATAL_ERROR
        "zyg_target_gradients(${target}): the ${lang} compiler is ${id} ${version} "
        "(${CMAKE_${lang}_COMPILER}); zyg's pass plugin runs in clang 22 only. "
        "Configure a fresh build directory with "
        "-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22.")
    endif()
  endforeach()
  if(NOT checked)
    message(FATAL_ERROR "zyg_target_gradients(${target}): the project enables neither C nor C++ (project(... LANGUAGES C CXX))")
  endif()
endfunction()

function(zyg_target_gradients target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "LTO;FORWARD" "WIDTH;HEADER" "EXPORT;ARGS;NAME")
  set(me "zyg_target_gradients(${target})")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${me}: unknown arguments `${arg_UNPARSED_ARGUMENTS}` "
                        "(expected LTO, EXPORT, ARGS, NAME, FORWARD, WIDTH, HEADER)")
  endif()
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "${me}: `${target}` is not a target (call it after add_library or add_executable)")
  endif()
  get_target_property(done "${target}" ZYG_GRADIENTS)
  if(done)
    message(FATAL_ERROR "${me}: called twice for the same target; give every option in one call")
  endif()
  get_target_property(type "${target}" TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    message(FATAL_ERROR "${me}: `${target}` is a ${type}, which compiles nothing")
  endif()
  _zyg_check_compilers("${target}")
  get_target_property(ipo "${target}" INTERPROCEDURAL_OPTIMIZATION)
  if(ipo)
    message(FATAL_ERROR
      "${me}: the target has INTERPROCEDURAL_OPTIMIZATION on, which is ThinLTO (-flto=thin) with clang: "
      "each file is optimised alone and zyg refuses its requests. Turn it off for this target and use "
      "zyg_target_gradients(${target} LTO), which builds with full LTO.")
  endif()

  # Exports: one -zyg-fn per function, the n-th -zyg-args and -zyg-name for the n-th.
  list(LENGTH arg_EXPORT n)
  if(n EQUAL 0 AND (arg_ARGS OR arg_NAME OR arg_FORWARD OR arg_WIDTH OR arg_HEADER))
    message(FATAL_ERROR "${me}: ARGS, NAME, FORWARD, WIDTH and HEADER are for EXPORT's functions; EXPORT names none")
  endif()
  if(arg_HEADER AND arg_LTO)
    message(FATAL_ERROR
      "${me}: HEADER cannot be combined with LTO: the gradients are made at the link, after the files are "
      "compiled; declare the exported gradients in your own header.")
  endif()
  foreach(list_name IN ITEMS ARGS NAME)
    list(LENGTH arg_${list_name} given)
    if(given GREATER 0 AND NOT given EQUAL n)
      message(FATAL_ERROR "${me}: ${list_name} gives ${given} values for ${n} EXPORT functions: give one per function, in the same order, or none")
    endif()
  endforeach()
  # All of them as one `SHELL:` group: CMake drops a repeated compile option, and two
  # functions may well have the same ARGS. Each value is quoted (a C++ name may have spaces:
  # `ns::loss(double const*, int)`).
  set(words "")
  foreach(fn IN LISTS arg_EXPORT)
    string(APPEND words " -mllvm \"-zyg-fn=${fn}\"")
  endforeach()
  foreach(kinds IN LISTS arg_ARGS)
    string(APPEND words " -mllvm \"-zyg-args=${kinds}\"")
  endforeach()
  foreach(name IN LISTS arg_NAME)
    string(APPEND words " -mllvm \"-zyg-name=${name}\"")
  endforeach()
  if(arg_FORWARD)
    string(APPEND words " -mllvm -zyg-mode=forward")
  endif()
  if(arg_WIDTH)
    string(APPEND words " -mllvm \"-zyg-width=${arg_WIDTH}\"")
  endif()
  if(arg_HEADER)
    get_filename_component(header "${arg_HEADER}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    string(APPEND words " -mllvm \"-zyg-header=${header}\"")
  endif()

  set(c_or_cxx "$<COMPILE_LANGUAGE:C,CXX>")
  target_compile_options("${target}" PRIVATE "$<${c_or_cxx}:-fpass-plugin=${ZYG_PLUGIN}>")
  if(words)
    # Inside the generator expression, `>` (`ns::cube<double>`), `,` and `;` are spelled out.
    string(REPLACE ">" "$<ANGLE-R>" words "${words}")
    string(REPLACE "," "$<COMMA>" words "${words}")
    string(REPLACE ";" "$<SEMICOLON>" words "${words}")
    target_compile_options("${target}" PRIVATE "$<${c_or_cxx}:SHELL:${words}>")
  endif()
  if(arg_LTO)
    target_compile_options("${target}" PRIVATE "$<${c_or_cxx}:-flto>")
    target_link_options("${target}" PRIVATE -flto -fuse-ld=lld "LINKER:--load-pass-plugin=${ZYG_PLUGIN}")
  endif()
  # The headers for the target and for what links it. Set as properties rather than with
  # target_link_libraries, whose keyword form cannot be mixed with a plain one the project
  # may already use for this target.
  set_property(TARGET "${target}" APPEND PROPERTY LINK_LIBRARIES Zyg::headers)
  set_property(TARGET "${target}" APPEND PROPERTY INTERFACE_LINK_LIBRARIES Zyg::headers)
  set_target_properties("${target}" PROPERTIES ZYG_GRADIENTS TRUE)
endfunction()
