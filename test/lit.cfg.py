# lit suite: structural checks (test/lit) and numeric integration programs (test/integration).
import os
import lit.formats

config.name = "Synthase"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp", ".test", ".sh"]
config.test_source_root = os.path.join(config.synthase_src, "test")
config.test_exec_root = os.path.join(config.synthase_build, "test")
config.excludes = ["unit", "Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt", "consumer"]

b = config.synthase_build
bindir = os.path.join(b, "bin")
llvm = config.llvm_bin
config.environment["PATH"] = os.pathsep.join([bindir, llvm, config.environment.get("PATH", os.environ.get("PATH", ""))])
for k in ("HOME", "TMPDIR", "CARGO_HOME", "RUSTUP_HOME"):
    if k in os.environ:
        config.environment[k] = os.environ[k]

plugin = os.path.join(b, "lib", "Synthase.so")
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%clang-plugin", os.path.join(b, "lib", "SynthaseClang.so")))
config.substitutions.append(("%synthase-cc", os.path.join(bindir, "synthase-cc")))
config.substitutions.append(("%synthase-cxx", os.path.join(bindir, "synthase-c++")))
config.substitutions.append(("%synthase-opt", os.path.join(bindir, "synthase-opt")))
config.substitutions.append(("%opt", os.path.join(llvm, "opt") + " -load-pass-plugin=" + plugin))
config.substitutions.append(("%clang", os.path.join(llvm, "clang")))
config.substitutions.append(("%lld", os.path.join(llvm, "ld.lld")))
config.substitutions.append(("%FileCheck", os.path.join(llvm, "FileCheck")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "integration", "Inputs")))
config.substitutions.append(("%srcroot", config.synthase_src))
config.substitutions.append(("%buildroot", b))

# Sanitizer builds of the integration programs (issue 8): ASan + UBSan, aborting on the first
# report, LeakSanitizer on at exit.
config.substitutions.append(("%sanflags", "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"))
config.substitutions.append(("%sanenv", "env ASAN_OPTIONS=detect_leaks=1:alloc_dealloc_mismatch=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"))
# The libFuzzer target over call-site lowering exists only when clang supports -fsanitize=fuzzer.
if os.path.exists(os.path.join(bindir, "synthase-fuzz-lowering")):
    config.available_features.add("fuzz-lowering")
import platform
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")
