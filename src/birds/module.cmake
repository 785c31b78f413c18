# The birds track (ChatGPT4PCG / Science Birds): the shared modules it links.
pcglab_module(birds DEPS pcglab_core pcglab_batch pcglab_nn pcglab_llm pcglab_store pcglab_report pugixml::pugixml
              box2d::box2d Freetype::Freetype)
target_compile_definitions(pcglab_birds PRIVATE PCGLAB_SOURCE_MODELS_DIR="${PROJECT_SOURCE_DIR}/models")
