#pragma once
// What was thrown, as text, for any thrown value: a kernel (or any other
// user code kernbench calls) may throw something that is not a
// std::exception (`throw 42;`, `throw "bad";`), and the run must still end
// with a message saying what it was, never with std::terminate or a hang.

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <typeinfo>

namespace kb {

/// The demangled name of a type ("int", "std::__cxx11::basic_string<...>").
inline std::string demangled(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangled);
}

/// Describes the exception being handled; call it only inside a catch
/// block: a std::exception's what() as it is (`with_type`: after its type,
/// "std::runtime_error: boom"); else "an int (42)", "a string ("bad")",
/// "an exception of type my::error (not a std::exception)".
inline std::string current_exception_text(bool with_type = false) {
  try {
    throw;
  } catch (const std::exception& e) {
    return with_type ? demangled(typeid(e).name()) + ": " + e.what() : std::string(e.what());
  } catch (const char* s) {
    return std::string("a string (\"") + (s ? s : "") + "\")";
  } catch (const std::string& s) {
    return "a string (\"" + s + "\")";
  } catch (int v) {
    return "an int (" + std::to_string(v) + ")";
  } catch (long v) {
    return "a long (" + std::to_string(v) + ")";
  } catch (unsigned v) {
    return "an unsigned (" + std::to_string(v) + ")";
  } catch (double v) {
    return "a double (" + std::to_string(v) + ")";
  } catch (...) {
    const std::type_info* t = abi::__cxa_current_exception_type();
    return "an exception of type " + (t ? demangled(t->name()) : std::string("unknown")) +
           " (not a std::exception)";
  }
}

} // namespace kb
