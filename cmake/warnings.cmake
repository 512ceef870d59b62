# Warnings and sanitizers as an INTERFACE target every opctl target links.
add_library(opctl_warnings INTERFACE)
target_compile_options(opctl_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(OPCTL_WERROR)
  target_compile_options(opctl_warnings INTERFACE -Werror)
endif()
if(OPCTL_SANITIZE)
  target_compile_options(opctl_warnings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                  -fno-sanitize-recover=undefined)
  target_link_options(opctl_warnings INTERFACE -fsanitize=address,undefined)
endif()
