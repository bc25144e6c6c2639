/**
 * The activities of the food supply chain, as NACE Rev. 2 classes (the EU's classification; Spain's
 * CNAE-2009 uses the same codes, written without the dot: 5610 is 56.10), and the stage of the
 * food supply chain each belongs to as Commission Delegated Decision (EU) 2019/1597 (Annex I)
 * measures food waste by stage: primary production (NACE A01, A03), processing and manufacturing
 * (C10, C11), retail and other distribution of food (G46, G47), restaurants and food services
 * (I56). Canteens and contract catering are food services (56.29, 56.21). Hotels (55) serve food
 * too: their waste is that of a food service, so they are placed there.
 *
 * Only these classes are accepted as an establishment's activity: an establishment of Merma
 * records food waste, so its activity is one of the food chain's; any other code is refused as
 * unknown.
 */
export const FOOD_CHAIN_STAGES = ['primary_production', 'processing_manufacturing', 'retail_distribution', 'food_services'] as const;
export type FoodChainStage = (typeof FOOD_CHAIN_STAGES)[number];

type Label = { es: string; en: string };

/** Every class accepted, with its name in Spanish (CNAE-2009's wording) and English (NACE Rev. 2's). */
export const NACE_CLASSES: Record<string, Label> = {
  '01.11': {
    es: 'Cultivo de cereales (excepto arroz), leguminosas y semillas oleaginosas',
    en: 'Growing of cereals (except rice), leguminous crops and oil seeds',
  },
  '01.12': { es: 'Cultivo de arroz', en: 'Growing of rice' },
  '01.13': { es: 'Cultivo de hortalizas, raíces y tubérculos', en: 'Growing of vegetables and melons, roots and tubers' },
  '01.19': { es: 'Otros cultivos no perennes', en: 'Growing of other non-perennial crops' },
  '01.21': { es: 'Cultivo de la vid', en: 'Growing of grapes' },
  '01.22': { es: 'Cultivo de frutos tropicales y subtropicales', en: 'Growing of tropical and subtropical fruits' },
  '01.23': { es: 'Cultivo de cítricos', en: 'Growing of citrus fruits' },
  '01.24': { es: 'Cultivo de frutos con hueso y pepitas', en: 'Growing of pome fruits and stone fruits' },
  '01.25': { es: 'Cultivo de otros árboles y arbustos frutales y frutos secos', en: 'Growing of other tree and bush fruits and nuts' },
  '01.26': { es: 'Cultivo de frutos oleaginosos', en: 'Growing of oleaginous fruits' },
  '01.41': { es: 'Explotación de ganado bovino para la producción de leche', en: 'Raising of dairy cattle' },
  '01.42': { es: 'Explotación de otro ganado bovino y búfalos', en: 'Raising of other cattle and buffaloes' },
  '01.45': { es: 'Explotación de ganado ovino y caprino', en: 'Raising of sheep and goats' },
  '01.46': { es: 'Explotación de ganado porcino', en: 'Raising of swine/pigs' },
  '01.47': { es: 'Avicultura', en: 'Raising of poultry' },
  '01.50': { es: 'Producción agrícola combinada con la producción ganadera', en: 'Mixed farming' },
  '03.11': { es: 'Pesca marina', en: 'Marine fishing' },
  '03.12': { es: 'Pesca en agua dulce', en: 'Freshwater fishing' },
  '03.21': { es: 'Acuicultura marina', en: 'Marine aquaculture' },
  '03.22': { es: 'Acuicultura en agua dulce', en: 'Freshwater aquaculture' },
  '10.11': { es: 'Procesado y conservación de carne', en: 'Processing and preserving of meat' },
  '10.12': { es: 'Procesado y conservación de volatería', en: 'Processing and preserving of poultry meat' },
  '10.13': { es: 'Elaboración de productos cárnicos y de volatería', en: 'Production of meat and poultry meat products' },
  '10.20': {
    es: 'Procesado y conservación de pescados, crustáceos y moluscos',
    en: 'Processing and preserving of fish, crustaceans and molluscs',
  },
  '10.31': { es: 'Procesado y conservación de patatas', en: 'Processing and preserving of potatoes' },
  '10.32': { es: 'Elaboración de zumos de frutas y hortalizas', en: 'Manufacture of fruit and vegetable juice' },
  '10.39': { es: 'Otro procesado y conservación de frutas y hortalizas', en: 'Other processing and preserving of fruit and vegetables' },
  '10.41': { es: 'Fabricación de aceites y grasas', en: 'Manufacture of oils and fats' },
  '10.51': { es: 'Preparación de leche y otros productos lácteos', en: 'Operation of dairies and cheese making' },
  '10.52': { es: 'Elaboración de helados', en: 'Manufacture of ice cream' },
  '10.61': { es: 'Fabricación de productos de molinería', en: 'Manufacture of grain mill products' },
  '10.71': {
    es: 'Fabricación de pan y de productos frescos de panadería y pastelería',
    en: 'Manufacture of bread; manufacture of fresh pastry goods and cakes',
  },
  '10.72': {
    es: 'Fabricación de galletas y productos de panadería y pastelería de larga duración',
    en: 'Manufacture of rusks and biscuits; manufacture of preserved pastry goods and cakes',
  },
  '10.73': {
    es: 'Fabricación de pastas alimenticias, cuscús y productos similares',
    en: 'Manufacture of macaroni, noodles, couscous and similar farinaceous products',
  },
  '10.82': {
    es: 'Fabricación de cacao, chocolate y productos de confitería',
    en: 'Manufacture of cocoa, chocolate and sugar confectionery',
  },
  '10.84': { es: 'Elaboración de especias, salsas y condimentos', en: 'Manufacture of condiments and seasonings' },
  '10.85': { es: 'Elaboración de platos y comidas preparados', en: 'Manufacture of prepared meals and dishes' },
  '10.86': {
    es: 'Elaboración de preparados alimenticios homogeneizados y alimentos dietéticos',
    en: 'Manufacture of homogenised food preparations and dietetic food',
  },
  '10.89': { es: 'Elaboración de otros productos alimenticios n.c.o.p.', en: 'Manufacture of other food products n.e.c.' },
  '10.91': {
    es: 'Fabricación de productos para la alimentación de animales de granja',
    en: 'Manufacture of prepared feeds for farm animals',
  },
  '11.01': { es: 'Destilación, rectificación y mezcla de bebidas alcohólicas', en: 'Distilling, rectifying and blending of spirits' },
  '11.02': { es: 'Elaboración de vinos', en: 'Manufacture of wine from grape' },
  '11.05': { es: 'Fabricación de cerveza', en: 'Manufacture of beer' },
  '11.07': {
    es: 'Fabricación de bebidas no alcohólicas; aguas minerales y otras aguas embotelladas',
    en: 'Manufacture of soft drinks; production of mineral waters and other bottled waters',
  },
  '46.31': { es: 'Comercio al por mayor de frutas y hortalizas', en: 'Wholesale of fruit and vegetables' },
  '46.32': { es: 'Comercio al por mayor de carne y productos cárnicos', en: 'Wholesale of meat and meat products' },
  '46.33': {
    es: 'Comercio al por mayor de productos lácteos, huevos, aceites y grasas comestibles',
    en: 'Wholesale of dairy products, eggs and edible oils and fats',
  },
  '46.34': { es: 'Comercio al por mayor de bebidas', en: 'Wholesale of beverages' },
  '46.36': {
    es: 'Comercio al por mayor de azúcar, chocolate y confitería',
    en: 'Wholesale of sugar and chocolate and sugar confectionery',
  },
  '46.37': { es: 'Comercio al por mayor de café, té, cacao y especias', en: 'Wholesale of coffee, tea, cocoa and spices' },
  '46.38': {
    es: 'Comercio al por mayor de pescados y mariscos y otros productos alimenticios',
    en: 'Wholesale of other food, including fish, crustaceans and molluscs',
  },
  '46.39': {
    es: 'Comercio al por mayor, no especializado, de productos alimenticios, bebidas y tabaco',
    en: 'Non-specialised wholesale of food, beverages and tobacco',
  },
  '47.11': {
    es: 'Comercio al por menor en establecimientos no especializados, con predominio en productos alimenticios, bebidas y tabaco',
    en: 'Retail sale in non-specialised stores with food, beverages or tobacco predominating',
  },
  '47.21': {
    es: 'Comercio al por menor de frutas y hortalizas en establecimientos especializados',
    en: 'Retail sale of fruit and vegetables in specialised stores',
  },
  '47.22': {
    es: 'Comercio al por menor de carne y productos cárnicos en establecimientos especializados',
    en: 'Retail sale of meat and meat products in specialised stores',
  },
  '47.23': {
    es: 'Comercio al por menor de pescados y mariscos en establecimientos especializados',
    en: 'Retail sale of fish, crustaceans and molluscs in specialised stores',
  },
  '47.24': {
    es: 'Comercio al por menor de pan y productos de panadería, confitería y pastelería en establecimientos especializados',
    en: 'Retail sale of bread, cakes, flour confectionery and sugar confectionery in specialised stores',
  },
  '47.25': {
    es: 'Comercio al por menor de bebidas en establecimientos especializados',
    en: 'Retail sale of beverages in specialised stores',
  },
  '47.29': {
    es: 'Otro comercio al por menor de productos alimenticios en establecimientos especializados',
    en: 'Other retail sale of food in specialised stores',
  },
  '47.81': {
    es: 'Comercio al por menor de productos alimenticios, bebidas y tabaco en puestos de venta y mercadillos',
    en: 'Retail sale via stalls and markets of food, beverages and tobacco products',
  },
  '47.91': { es: 'Comercio al por menor por correspondencia o Internet', en: 'Retail sale via mail order houses or via Internet' },
  '55.10': { es: 'Hoteles y alojamientos similares', en: 'Hotels and similar accommodation' },
  '55.20': { es: 'Alojamientos turísticos y otros alojamientos de corta estancia', en: 'Holiday and other short-stay accommodation' },
  '56.10': { es: 'Restaurantes y puestos de comidas', en: 'Restaurants and mobile food service activities' },
  '56.21': { es: 'Provisión de comidas preparadas para eventos', en: 'Event catering activities' },
  '56.29': {
    es: 'Otros servicios de comidas (comedores colectivos y catering)',
    en: 'Other food service activities (canteens and contract catering)',
  },
  '56.30': { es: 'Establecimientos de bebidas', en: 'Beverage serving activities' },
};

export const NACE_CODES = Object.keys(NACE_CLASSES) as [string, ...string[]];

/** The 2019/1597 stage of a NACE class (by its division), or null for a code this list does not hold. */
export function stageOfNace(code: string): FoodChainStage | null {
  if (!(code in NACE_CLASSES)) return null;
  const division = code.slice(0, 2);
  if (division === '01' || division === '03') return 'primary_production';
  if (division === '10' || division === '11') return 'processing_manufacturing';
  if (division === '46' || division === '47') return 'retail_distribution';
  return 'food_services';
}

/** "5610", "56.1", " 56.10 " → "56.10"; anything else unchanged (and then refused as unknown). */
export function normalizeNace(input: string): string {
  const s = input.trim();
  const bare = /^(\d{2})(\d{2})$/.exec(s);
  if (bare) return `${bare[1]}.${bare[2]}`;
  const short = /^(\d{2})\.(\d)$/.exec(s);
  if (short) return `${short[1]}.${short[2]}0`;
  return s;
}
