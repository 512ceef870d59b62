#include "validate/validation.hpp"
