#include "core/item_boundary.h"

namespace pcglab {

ItemError item_error_from_current_exception(const std::string& item) {
  try {
    throw;
  } catch (const SetupError&) {
    throw;
  } catch (const InputError& e) {
    return ItemError{item, e.what()};
  } catch (const CheckError& e) {
    return ItemError{item, std::string("internal error (a bug in pcglab, please report it): ") + e.what(),
                     true};
  } catch (const std::bad_alloc&) {
    return ItemError{item, "out of memory while processing this item"};
  } catch (const std::exception& e) {
    return ItemError{item, std::string("unexpected error: ") + e.what()};
  } catch (...) {
    return ItemError{item, "unexpected error of an unknown kind"};
  }
}

}  // namespace pcglab
