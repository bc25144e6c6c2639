import type { FoodCategory, PlanLanguage, WasteStage } from '@merma/schema';

/**
 * Prevention measures, by stage and by food category, drawn from the actions Ley 1/2025 expects of
 * food businesses (prevention first, donation, then other recovery routes) and from common practice
 * in kitchens and shops. Each hotspot of a plan gets the measures of its stage and its category.
 *
 * A stored plan keeps the measures' ids, never their words, so it reads in any language; an id
 * must therefore never change meaning (retire it and add another instead).
 */
export type Measure = { id: string } & Record<PlanLanguage, string>;

export const MEASURES_BY_STAGE: Record<WasteStage | 'none', Measure[]> = {
  receiving: [
    {
      id: 'receiving.check_deliveries',
      es: 'Revisar la mercancía en la recepción (temperatura, fechas y estado) y devolver lo que no cumpla.',
      en: 'Check deliveries on arrival (temperature, dates, condition) and return what does not comply.',
    },
    {
      id: 'receiving.order_to_demand',
      es: 'Ajustar el tamaño y la frecuencia de los pedidos a la demanda real y acordar con los proveedores entregas más pequeñas y frecuentes.',
      en: 'Adjust order sizes and frequency to actual demand; agree smaller, more frequent deliveries.',
    },
  ],
  storage: [
    {
      id: 'storage.fefo_rotation',
      es: 'Rotar el género por fecha de caducidad (lo primero que caduca, lo primero que sale) y etiquetar cada envase con su fecha de apertura.',
      en: 'Rotate stock first-expired-first-out and label every container with its opening date.',
    },
    {
      id: 'storage.temperature_log',
      es: 'Registrar a diario la temperatura de cámaras y neveras y actuar ante cualquier desviación.',
      en: 'Log cold-room and fridge temperatures daily and act on deviations.',
    },
    {
      id: 'storage.weekly_stock_review',
      es: 'Revisar las existencias cada semana y dar salida a los productos próximos a caducar en el menú del día o en ofertas.',
      en: 'Review stock levels weekly and move products close to their date to today’s menu or offers.',
    },
  ],
  preparation: [
    {
      id: 'preparation.standard_recipes',
      es: 'Estandarizar recetas y raciones con fichas técnicas y una báscula en cada partida.',
      en: 'Standardise recipes and portions with written cards and scales at each station.',
    },
    {
      id: 'preparation.use_trimmings',
      es: 'Aprovechar recortes y excedentes en fondos, salsas, comida de personal o sugerencias del día.',
      en: 'Use trimmings and surplus in stocks, sauces, staff meals or daily specials.',
    },
    {
      id: 'preparation.batch_to_forecast',
      es: 'Elaborar por tandas ajustadas a la previsión en lugar de preparar todo el servicio de una vez.',
      en: 'Prepare in batches matched to the forecast instead of the whole service at once.',
    },
  ],
  service: [
    {
      id: 'service.portion_sizes',
      es: 'Adaptar el tamaño de las raciones, ofrecer medias raciones y dejar que el cliente elija la guarnición.',
      en: 'Adapt portion sizes, offer half portions and let customers choose garnishes.',
    },
    {
      id: 'service.buffet_refills',
      es: 'Ajustar las cantidades del bufé y del expositor a cada franja horaria y reponer en bandejas pequeñas.',
      en: 'Adjust buffet and display quantities to the hour of the day and refill in small trays.',
    },
  ],
  post_service: [
    {
      id: 'post_service.take_home_containers',
      es: 'Ofrecer a los clientes, sin coste adicional, envases reutilizables o reciclables para llevarse lo que no hayan consumido (obligatorio en hostelería según la Ley 1/2025).',
      en: 'Offer customers free, reusable or recyclable containers to take leftovers home (Ley 1/2025 obliges it in hospitality).',
    },
    {
      id: 'post_service.same_day_donation',
      es: 'Donar en el día los excedentes aptos para el consumo mediante un convenio con un banco de alimentos o una entidad social.',
      en: 'Donate safe surplus the same day through an agreement with a food bank or social organisation.',
    },
    {
      id: 'post_service.plate_waste_review',
      es: 'Analizar cada semana las sobras de plato por receta y revisar los platos que más vuelven a cocina.',
      en: 'Review plate waste by dish each week and revise the dishes that come back most.',
    },
  ],
  none: [
    {
      id: 'none.record_stage',
      es: 'Registrar la etapa de cada pérdida (recepción, almacenamiento, preparación, servicio, post-servicio) para orientar las medidas allí donde se producen.',
      en: 'Record the stage of each loss (receiving, storage, preparation, service, post-service) to aim the measures where losses occur.',
    },
  ],
};

export const MEASURES_BY_CATEGORY: Record<FoodCategory, Measure[]> = {
  bakery: [
    {
      id: 'bakery.bake_to_forecast',
      es: 'Hornear según la previsión en varias tandas; vender o donar el pan del día anterior y aprovecharlo en pan rallado, torrijas o pudin de pan.',
      en: 'Bake to the forecast in several batches; sell or donate day-old bread and use it in breadcrumbs or puddings.',
    },
  ],
  fruit_veg: [
    {
      id: 'fruit_veg.imperfect_produce',
      es: 'Vender con descuento la fruta y la verdura con defectos estéticos o aprovecharla en cremas, zumos y purés.',
      en: 'Sell imperfect produce at a discount or use it in soups, juices and purées.',
    },
  ],
  dairy: [
    {
      id: 'dairy.watch_dates',
      es: 'Vigilar a diario las fechas de consumo preferente y poner en oferta o donar los productos que estén a punto de alcanzarlas.',
      en: 'Watch best-before dates daily and put products close to them on offer or donate them.',
    },
  ],
  meat: [
    {
      id: 'meat.portion_and_freeze',
      es: 'Racionar y congelar los excedentes antes de que caduquen; planificar los despieces para aprovechar la pieza entera.',
      en: 'Portion and freeze surplus before its date; plan cuts to use the whole piece.',
    },
  ],
  fish: [
    {
      id: 'fish.buy_to_forecast',
      es: 'Comprar según la previsión diaria y congelar o cocinar los excedentes ese mismo día.',
      en: 'Buy to the daily forecast and freeze or cook surplus the same day.',
    },
  ],
  prepared_meals: [
    {
      id: 'prepared_meals.chill_and_portion',
      es: 'Abatir y racionar enseguida los excedentes para reutilizarlos o donarlos con seguridad dentro de su vida útil.',
      en: 'Cool and portion surplus quickly for safe reuse or donation within its shelf life.',
    },
  ],
  cereals: [
    {
      id: 'cereals.airtight_rotation',
      es: 'Guardar los productos secos en recipientes herméticos y rotarlos; cocer el arroz y la pasta al momento siempre que sea posible.',
      en: 'Store dry goods airtight and rotate them; cook rice and pasta to order where possible.',
    },
  ],
  beverages: [
    {
      id: 'beverages.rotate_by_date',
      es: 'Rotar las existencias por fecha y no pedir más bebidas de temporada de las que se vayan a vender.',
      en: 'Rotate stock by date and avoid over-ordering seasonal drinks.',
    },
  ],
  others: [
    {
      id: 'others.classify',
      es: 'Clasificar estas pérdidas por categoría para dar con la medida adecuada.',
      en: 'Classify these losses by category to find the right measure.',
    },
  ],
};

const MEASURES_BY_ID = new Map([...Object.values(MEASURES_BY_STAGE), ...Object.values(MEASURES_BY_CATEGORY)].flat().map((m) => [m.id, m]));

/** The ids of the (at most four) measures for a hotspot: its stage's first, then its category's. */
export function measureIdsFor(stage: string, category: string): string[] {
  const byStage = MEASURES_BY_STAGE[stage as WasteStage] ?? MEASURES_BY_STAGE.none;
  const byCategory = MEASURES_BY_CATEGORY[category as FoodCategory] ?? [];
  return [...byStage, ...byCategory].slice(0, 4).map((m) => m.id);
}

/** The words of a measure in `lang`; undefined for an id this version does not know. */
export function measureText(id: string, lang: PlanLanguage): string | undefined {
  return MEASURES_BY_ID.get(id)?.[lang];
}
