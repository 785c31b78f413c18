# Build-time embedding of a source file's bytes into the executable (a script run by
# pcglab_embed_file(), cmake/pcglab_module.cmake):
#   cmake -DINPUT=<file> -DOUTPUT=<generated .cc> -DSYMBOL=<name> -DNAMESPACE=<ns> -DLABEL=<path> -P embed_file.cmake
# writes a .cc that defines `const unsigned char SYMBOL[]` (the bytes, then a NUL) and
# `const unsigned long SYMBOL_size` (the byte count, without the NUL) in NAMESPACE. Hexadecimal, so
# no byte of the file can end or change a C++ literal. The file is rewritten only when its text
# changes, so an unchanged input recompiles nothing.
foreach(var INPUT OUTPUT SYMBOL NAMESPACE LABEL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_file.cmake: -D${var}=... is missing")
  endif()
endforeach()
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
# 16 bytes to a line.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes
       "${bytes}")
string(CONCAT text "// Generated from ${LABEL} by cmake/embed_file.cmake at build time: do not edit.\n"
       "namespace ${NAMESPACE} {\n"
       "extern const unsigned char ${SYMBOL}[];\n"
       "extern const unsigned long ${SYMBOL}_size;\n"
       "const unsigned char ${SYMBOL}[] = {\n${bytes}0x00};\n"
       "const unsigned long ${SYMBOL}_size = ${size};\n"
       "}  // namespace ${NAMESPACE}\n")
set(old "")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
